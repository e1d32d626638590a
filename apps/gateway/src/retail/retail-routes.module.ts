import { Module } from '@nestjs/common';
import { RetailModule } from '@lib/retail';

import { RetailAccountController } from './retail-account.controller.js';

@Module({
  controllers: [RetailAccountController],
  imports: [RetailModule],
})
export class RetailRoutesModule {}
