import type { SandboxConfig } from '../../config/sandbox-config.schema.js';
import type { MatchingEngine } from '../../engine/index.js';
import type { ExchangeAuthorizationParts } from '../exchange-authorization.js';
import type { DropCopyFeed } from './dropcopy/drop-copy-feed.js';
import type { MarketDataStreamRegistry } from './market-data-stream.registry.js';
import type { StreamPool } from './stream-pool.js';

/** What the exchange's gRPC services need, handed to them by the composition root. */
export interface ExchangeGrpcParts extends ExchangeAuthorizationParts {
  readonly config: SandboxConfig['grpc'];
  readonly engine: MatchingEngine;
  readonly streams: StreamPool;
  readonly marketDataStreams: MarketDataStreamRegistry;
  readonly dropCopy: DropCopyFeed;
}
