import { Module } from '@nestjs/common';
import { ExchangeModule } from '@lib/exchange';

import { ExchangeAccountController } from './exchange-account.controller.js';

@Module({
  controllers: [ExchangeAccountController],
  imports: [ExchangeModule],
})
export class ExchangeRoutesModule {}
