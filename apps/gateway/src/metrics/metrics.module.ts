import { Module } from '@nestjs/common';

import { HttpMetrics } from './http-metrics.js';
import { MetricsController } from './metrics.controller.js';

@Module({
  controllers: [MetricsController],
  exports: [HttpMetrics],
  providers: [HttpMetrics],
})
export class GatewayMetricsModule {}
