import { Module } from '@nestjs/common';
import { AuthModule } from '@lib/auth';

import { RetailHttpClient } from './client/retail-http.client.js';

@Module({
  exports: [RetailHttpClient],
  imports: [AuthModule],
  providers: [RetailHttpClient],
})
export class RetailModule {}
