import { Global, Module } from '@nestjs/common';
import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One Prometheus registry per application instance (not prom-client's global one), so two gateways
 * in one process, as in the tests, do not collide. Libraries register their metrics on it.
 */
export class MetricsRegistry extends Registry {
  constructor() {
    super();
    collectDefaultMetrics({ register: this });
  }
}

@Global()
@Module({
  exports: [MetricsRegistry],
  providers: [MetricsRegistry],
})
export class MetricsModule {}
