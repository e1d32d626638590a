import { Global, Module } from '@nestjs/common';

import { Bulkheads } from './bulkheads.js';
import { UpstreamHttp } from './upstream-http.service.js';

@Global()
@Module({
  exports: [Bulkheads, UpstreamHttp],
  providers: [Bulkheads, UpstreamHttp],
})
export class HttpModule {}
