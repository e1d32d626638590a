import { Module } from '@nestjs/common';
import { RateLimitModule } from '@lib/ratelimit';

import { BudgetUseMetrics } from './budget-use.metrics.js';
import { HttpMetrics } from './http-metrics.js';
import { MetricsController } from './metrics.controller.js';

@Module({
  controllers: [MetricsController],
  exports: [HttpMetrics],
  imports: [RateLimitModule],
  providers: [BudgetUseMetrics, HttpMetrics],
})
export class GatewayMetricsModule {}
