import { Module } from '@nestjs/common';
import { RetailModule } from '@lib/retail';

import { RetailAccountController } from './retail-account.controller.js';
import { RetailOrdersController } from './retail-orders.controller.js';
import { RiskModule } from '../risk/risk.module.js';

@Module({
  controllers: [RetailAccountController, RetailOrdersController],
  imports: [RetailModule, RiskModule],
})
export class RetailRoutesModule {}
