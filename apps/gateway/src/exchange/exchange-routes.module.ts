import { Module } from '@nestjs/common';
import { ExchangeModule } from '@lib/exchange';

import { ExchangeAccountController } from './exchange-account.controller.js';
import { ExchangeFundingController } from './exchange-funding.controller.js';
import { ExchangeMarketDataController } from './exchange-market-data.controller.js';
import { ExchangeReferenceDataController } from './exchange-reference-data.controller.js';
import { ExchangeReportsController } from './exchange-reports.controller.js';
import { ExchangeTradingController } from './exchange-trading.controller.js';
import { OwnedFundingAccounts } from './identity/owned-funding-accounts.service.js';
import { OwnedOrders } from './identity/owned-orders.service.js';
import { OrdersModule } from '../orders/orders.module.js';
import { RiskModule } from '../risk/risk.module.js';

@Module({
  controllers: [
    ExchangeAccountController,
    ExchangeFundingController,
    ExchangeMarketDataController,
    ExchangeReferenceDataController,
    ExchangeReportsController,
    ExchangeTradingController,
  ],
  imports: [ExchangeModule, OrdersModule, RiskModule],
  providers: [OwnedFundingAccounts, OwnedOrders],
})
export class ExchangeRoutesModule {}
