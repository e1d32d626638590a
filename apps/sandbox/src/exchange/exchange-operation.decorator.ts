import { SetMetadata } from '@nestjs/common';

import type { ExchangeLimitClass } from './rate-limit/published-limits.js';

export const EXCHANGE_OPERATION = 'sandbox:exchange-operation';

export interface ExchangeOperationMeta {
  /** Counted as `exchange.calls.<name>` once the call passes authorization and the firm's limit. */
  name: string;
  /** The published limit the call spends; none for operations without one. */
  limit?: ExchangeLimitClass;
}

/** Names an exchange operation for the counters, the per-firm limits and delay faults. */
export const ExchangeOperation = (name: string, limit?: ExchangeLimitClass) =>
  SetMetadata(EXCHANGE_OPERATION, { name, limit } satisfies ExchangeOperationMeta);
