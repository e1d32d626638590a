import { Module } from '@nestjs/common';
import { RateLimitModule } from '@lib/ratelimit';

import { UpstreamCalls } from './pipeline/upstream-calls.service.js';

/**
 * The upstream-call pipeline. Relies on @lib/core's global HTTP pools (UpstreamHttp, Bulkheads) and
 * the budget of RateLimitModule; Clock is optional (apps that do not provide it get the system clock).
 */
@Module({
  exports: [UpstreamCalls],
  imports: [RateLimitModule],
  providers: [UpstreamCalls],
})
export class UpstreamModule {}
