import { Module } from '@nestjs/common';
import { ExchangeModule } from '@lib/exchange';
import { JournalModule } from '@lib/journal';
import { RetailModule } from '@lib/retail';

import { RiskModule } from '../risk/risk.module.js';
import { JournalReads } from './journal-reads.service.js';
import { OrderJournalController } from './order-journal.controller.js';
import { OrderSafety } from './order-safety.service.js';
import { OrderSightings } from './order-sightings.js';
import { OrderStreamJournal } from './order-stream-journal.service.js';
import { ReplaceResolver } from './replace-resolver.js';
import { RetailChangeFinder } from './retail-change-finder.js';
import { RetailOrderChannel } from './retail-order-channel.js';
import { RetailOrderFinder } from './retail-order-finder.js';
import { UnknownChanges } from './unknown-changes.service.js';
import { UnknownOrders } from './unknown-orders.service.js';
import { UnknownRetailCalls } from './unknown-retail-calls.service.js';

/** The order path's idempotency, journal and UNKNOWN resolution (issue 27), and the journal's read routes. */
@Module({
  controllers: [OrderJournalController],
  imports: [JournalModule, ExchangeModule, RetailModule, RiskModule],
  providers: [
    JournalReads,
    OrderSafety,
    UnknownOrders,
    OrderSightings,
    OrderStreamJournal,
    RetailOrderFinder,
    RetailOrderChannel,
    UnknownRetailCalls,
    UnknownChanges,
    ReplaceResolver,
    RetailChangeFinder,
  ],
  exports: [OrderSafety],
})
export class OrdersModule {}
