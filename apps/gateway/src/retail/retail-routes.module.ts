import { Module } from '@nestjs/common';
import { RetailModule } from '@lib/retail';

import { OrdersModule } from '../orders/orders.module.js';
import { RiskModule } from '../risk/risk.module.js';
import { RetailAccountController } from './retail-account.controller.js';
import { RetailOrdersController } from './retail-orders.controller.js';

@Module({
  controllers: [RetailAccountController, RetailOrdersController],
  imports: [OrdersModule, RetailModule, RiskModule],
})
export class RetailRoutesModule {}
