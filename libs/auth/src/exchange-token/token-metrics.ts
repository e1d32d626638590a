import type { MetricsRegistry } from '@lib/core';
import { Counter, Gauge } from 'prom-client';

import type { TokenFailureReason } from './token-endpoint.js';

export interface TokenTimes {
  ageSeconds: number | undefined;
  expiresInSeconds: number | undefined;
}

/** Prometheus view of the exchange token: times are read at scrape, counts as they happen. No token values. */
export class TokenMetrics {
  private readonly refreshes: Counter;
  private readonly failures: Counter<'reason'>;

  constructor(registry: MetricsRegistry, times: () => TokenTimes) {
    new Gauge({
      name: 'gateway_exchange_token_age_seconds',
      help: 'Age of the cached exchange access token (0 while there is none)',
      registers: [registry],
      collect() {
        this.set(times().ageSeconds ?? 0);
      },
    });
    new Gauge({
      name: 'gateway_exchange_token_expires_in_seconds',
      help: 'Seconds until the cached exchange access token lapses (0 while there is none)',
      registers: [registry],
      collect() {
        this.set(times().expiresInSeconds ?? 0);
      },
    });
    this.refreshes = new Counter({
      name: 'gateway_exchange_token_refreshes_total',
      help: 'Exchange access tokens obtained from the auth server',
      registers: [registry],
    });
    this.failures = new Counter({
      name: 'gateway_exchange_token_refresh_failures_total',
      help: 'Failed exchange token requests by reason',
      labelNames: ['reason'],
      registers: [registry],
    });
  }

  refreshed(): void {
    this.refreshes.inc();
  }

  failed(reason: TokenFailureReason): void {
    this.failures.inc({ reason });
  }
}
