import type { AuthSurfaceParts } from '../auth/auth-surface.module.js';
import { TokenAuthority } from '../auth/token-authority.js';
import type { CatalogSurfaceParts } from '../catalog/catalog-surface.module.js';
import type { SandboxConfig } from '../config/sandbox-config.schema.js';
import { MatchingEngine, binaryContract, instrumentsFixture } from '../engine/index.js';
import type { ExchangeSurfaceParts } from '../exchange/exchange-surface.module.js';
import { DropCopyFeed } from '../exchange/grpc/dropcopy/drop-copy-feed.js';
import { DropCopyLog } from '../exchange/grpc/dropcopy/drop-copy-log.js';
import type { ExchangeGrpcParts } from '../exchange/grpc/exchange-grpc.parts.js';
import { MarketDataStreamRegistry } from '../exchange/grpc/market-data-stream.registry.js';
import { StreamPool } from '../exchange/grpc/stream-pool.js';
import type { RetailSurfaceParts } from '../retail/retail-surface.module.js';
import { RetailVenue } from '../retail/retail-venue.js';
import { ExchangeClients } from '../shared/exchange-clients.js';
import { FaultBoard } from '../shared/fault-board.js';
import { RetailKeys } from '../shared/retail-keys.js';
import { SandboxAddresses } from '../shared/sandbox-addresses.js';
import { SandboxClock } from '../shared/sandbox-clock.js';
import { SandboxCounters } from '../shared/sandbox-counters.js';

/** Every part of one sandbox, made once by `composeSandbox`; a surface is handed only its own selection of them. */
export interface SandboxParts {
  readonly config: SandboxConfig;
  readonly clock: SandboxClock;
  /** Counts by name (token requests, rejections, calls), for tests and the operator's view. */
  readonly counters: SandboxCounters;
  readonly faults: FaultBoard;
  readonly addresses: SandboxAddresses;
  readonly tokens: TokenAuthority;
  readonly exchangeClients: ExchangeClients;
  readonly retailKeys: RetailKeys;
  /** One engine for the whole sandbox: exchange, retail and catalog books are the same books. */
  readonly engine: MatchingEngine;
  /** Retail orders' terms, deposits, limits and channels; cash and positions are the engine's. */
  readonly retail: RetailVenue;
  /** Open gRPC market-data streams, their heartbeat interval and counters. */
  readonly marketDataStreams: MarketDataStreamRegistry;
  /** Every open gRPC stream of every service: the firm's pooled budget and its ingress. */
  readonly streams: StreamPool;
  /** The retained log drop copy replays, delivery faults, and the heartbeat of order and drop-copy streams. */
  readonly dropCopy: DropCopyFeed;
}

/** The composition root: constructs the clock, stores, engine and stream registries of one sandbox, once. */
export function composeSandbox(config: SandboxConfig): SandboxParts {
  const clock = new SandboxClock(config.clockSkewMs);
  const now = () => clock.now();
  const counters = new SandboxCounters();
  const count = (name: string, by?: number) => counters.count(name, by);
  const engine = new MatchingEngine({
    clock: now,
    instruments: [...instrumentsFixture(), ...config.exchange.extraGames.map(binaryContract)],
  });
  return {
    config,
    clock,
    counters,
    faults: new FaultBoard(),
    addresses: new SandboxAddresses(),
    tokens: new TokenAuthority(config.exchange.tokenTtlSeconds),
    exchangeClients: new ExchangeClients(),
    retailKeys: new RetailKeys(),
    engine,
    retail: new RetailVenue(engine, now),
    marketDataStreams: new MarketDataStreamRegistry(engine, count, now),
    streams: new StreamPool(config.grpc, count, now),
    dropCopy: new DropCopyFeed(new DropCopyLog(engine, config.grpc.dropCopyRetention), config.grpc.heartbeatMs),
  };
}

// What each surface is handed: its own narrow selection, so no surface can reach another's parts.

export function authSurfaceParts(parts: SandboxParts): AuthSurfaceParts {
  const { clock, counters, faults, addresses, tokens, exchangeClients } = parts;
  return { clock, counters, faults, addresses, tokens, exchangeClients };
}

export function exchangeSurfaceParts(parts: SandboxParts): ExchangeSurfaceParts {
  const { config, engine, clock, counters, faults, streams, marketDataStreams, dropCopy } = parts;
  return {
    config: config.exchange,
    authorization: exchangeAuthorization(parts),
    engine,
    clock,
    counters,
    faults,
    streams,
    marketDataStreams,
    dropCopy,
  };
}

export function exchangeGrpcParts(parts: SandboxParts): ExchangeGrpcParts {
  const { config, engine, streams, marketDataStreams, dropCopy } = parts;
  return { ...exchangeAuthorization(parts), config: config.grpc, engine, streams, marketDataStreams, dropCopy };
}

export function retailSurfaceParts(parts: SandboxParts): RetailSurfaceParts {
  const { retailKeys, clock, counters, engine, retail } = parts;
  return { signature: { retailKeys, clock, counters }, engine, retail, clock, counters };
}

export function catalogSurfaceParts(parts: SandboxParts): CatalogSurfaceParts {
  const { config, engine, counters, faults } = parts;
  return { config: config.catalog, engine, counters, faults };
}

function exchangeAuthorization({
  clock,
  addresses,
  tokens,
  exchangeClients,
  counters,
}: SandboxParts): ExchangeSurfaceParts['authorization'] {
  return { clock, addresses, tokens, exchangeClients, counters };
}
