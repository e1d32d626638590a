import { Module } from '@nestjs/common';
import { AuthModule } from '@lib/auth';

import { ExchangeHttpClient } from './client/exchange-http.client.js';

@Module({
  exports: [ExchangeHttpClient],
  imports: [AuthModule],
  providers: [ExchangeHttpClient],
})
export class ExchangeModule {}
