import { type Server, status as GrpcStatus } from '@grpc/grpc-js';
import { DEFAULT_PROTO_DIR, type MarketDataSubscriptionRequest, loadMarketDataProto } from '@lib/exchange';

import { authorizeExchangeCall } from '../exchange/exchange-authorization.js';
import type { SandboxState } from '../shared/sandbox-state.js';
import { type MarketDataCall, MarketDataStream, type StreamTerms } from './market-data.stream.js';
import { type BookScales, scalesOf } from './market-data.wire.js';

/** upstream-facts "Exchange surface": at most 1000 symbols a request, depth default 10 (spec 8: at most 10). */
const MAX_SYMBOLS = 1000;
const DEFAULT_DEPTH = 10;
const MAX_DEPTH = 10;
/** upstream-facts: at most 20 concurrent streams per firm. */
const MAX_STREAMS_PER_FIRM = 20;

/**
 * Adds polymarket.v1.MarketDataSubscriptionAPI to the sandbox's gRPC server, from the same proto
 * files the gateway loads. Only CreateMarketDataSubscription is served; grpc-js answers
 * BiDirectionalStreamMarketData with UNIMPLEMENTED (its request semantics are not documented).
 */
export function addMarketDataService(server: Server, state: SandboxState): void {
  const { Client } = loadMarketDataProto(DEFAULT_PROTO_DIR);
  server.addService(Client.service, { CreateMarketDataSubscription: (call: MarketDataCall) => subscribe(state, call) });
}

/** Spec §5.1.5 and §7 in upstream's order: token (UNAUTHENTICATED), scope (PERMISSION_DENIED), request, limit. */
function subscribe(state: SandboxState, call: MarketDataCall): void {
  const registry = state.marketDataStreams;
  const refuse = (code: GrpcStatus, details: string, reason: string) => {
    registry.refused(reason);
    call.emit('error', { code, details });
  };
  const [value] = call.metadata.get('authorization');
  const authorization = typeof value === 'string' ? value : undefined;
  const auth = authorizeExchangeCall(state, { authorization }, { scope: 'read:marketdata', accountScoped: false });
  if (!auth.ok) return refuse(auth.grpcCode, auth.message, auth.reason);

  const books = requestedBooks(state, call.request);
  if (typeof books === 'string') return refuse(GrpcStatus.INVALID_ARGUMENT, books, 'invalid_argument');
  const depth = call.request.depth || DEFAULT_DEPTH;
  if (depth < 0 || depth > MAX_DEPTH) return refuse(GrpcStatus.INVALID_ARGUMENT, `depth must be between 1 and ${MAX_DEPTH}`, 'invalid_argument');
  const firm = auth.caller.client.firm;
  if (registry.openStreams({ firm }) >= MAX_STREAMS_PER_FIRM) {
    return refuse(GrpcStatus.RESOURCE_EXHAUSTED, `firm ${firm} already holds ${MAX_STREAMS_PER_FIRM} concurrent streams`, 'resource_exhausted');
  }
  const terms: StreamTerms = {
    firm,
    books,
    named: call.request.symbols.length > 0,
    depth,
    // `unaggregated` is accepted and ignored: the engine keeps price levels only.
    snapshotOnly: call.request.snapshotOnly === true,
    expiresAtMs: auth.caller.expiresAtMs,
  };
  new MarketDataStream(call, registry, state.engine, terms).start(state.clock.now());
}

/**
 * The books a request asks for, in its order, or why it is refused. An unknown symbol refuses the
 * whole request (INVALID_ARGUMENT) rather than being skipped: a silent omission would leave a client
 * waiting for a snapshot that never comes.
 */
function requestedBooks(state: SandboxState, request: MarketDataSubscriptionRequest): Map<string, BookScales> | string {
  if (request.symbols.length > MAX_SYMBOLS) return `at most ${MAX_SYMBOLS} symbols per subscription`;
  const instruments = new Map(state.engine.instruments().map((instrument) => [instrument.symbol, scalesOf(instrument)]));
  if (request.symbols.length === 0) return instruments;
  const unknown = request.symbols.filter((symbol) => !instruments.has(symbol));
  if (unknown.length > 0) return `unknown symbol${unknown.length > 1 ? 's' : ''}: ${unknown.slice(0, 5).join(', ')}`;
  return new Map(request.symbols.map((symbol) => [symbol, instruments.get(symbol)!]));
}
