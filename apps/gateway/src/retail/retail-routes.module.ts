import { Module } from '@nestjs/common';
import { RetailModule } from '@lib/retail';

import { RetailAccountController } from './retail-account.controller.js';
import { RetailOrdersController } from './retail-orders.controller.js';

@Module({
  controllers: [RetailAccountController, RetailOrdersController],
  imports: [RetailModule],
})
export class RetailRoutesModule {}
