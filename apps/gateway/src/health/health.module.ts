import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';

import { HealthController } from './health.controller.js';
import { ReadinessMetrics } from './readiness.metrics.js';

@Module({
  controllers: [HealthController],
  imports: [TerminusModule.forRoot({ logger: false })],
  providers: [ReadinessMetrics],
})
export class HealthModule {}
