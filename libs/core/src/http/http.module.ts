import { Global, Module } from '@nestjs/common';

import { UpstreamHttp } from './upstream-http.service.js';

@Global()
@Module({
  exports: [UpstreamHttp],
  providers: [UpstreamHttp],
})
export class HttpModule {}
