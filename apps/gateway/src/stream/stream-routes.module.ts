import { Module } from '@nestjs/common';
import { ExchangeModule } from '@lib/exchange';
import { RetailModule } from '@lib/retail';

import { RiskModule } from '../risk/risk.module.js';
import { WsDocsController } from './ws-docs.controller.js';
import { WsEndpoint } from './ws-endpoint.js';
import { WsTicketStore } from './ws-ticket.store.js';
import { WsTicketsController } from './ws-tickets.controller.js';

/** `/ws`, its tickets and its AsyncAPI document; the hub itself is FanoutModule's (global). */
@Module({
  controllers: [WsDocsController, WsTicketsController],
  imports: [ExchangeModule, RetailModule, RiskModule],
  providers: [WsEndpoint, WsTicketStore],
})
export class StreamRoutesModule {}
