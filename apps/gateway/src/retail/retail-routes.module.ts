import { Module } from '@nestjs/common';
import { RetailModule } from '@lib/retail';

import { RetailAccountController } from './retail-account.controller.js';
import { RetailOrdersController } from './retail-orders.controller.js';
import { OrdersModule } from '../orders/orders.module.js';

@Module({
  controllers: [RetailAccountController, RetailOrdersController],
  imports: [RetailModule, OrdersModule],
})
export class RetailRoutesModule {}
