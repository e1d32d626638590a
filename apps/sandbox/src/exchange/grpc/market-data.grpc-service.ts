import {
  type ServerDuplexStream,
  type ServerWritableStream,
  type ServiceDefinition,
  type Server,
  status as GrpcStatus,
} from '@grpc/grpc-js';

import type { ExchangeGrpcParts } from './exchange-grpc.parts.js';
import { MarketDataStream } from './market-data.stream.js';
import {
  type BookScales,
  type MarketDataResponse,
  type MarketDataStreamRequest,
  type MarketDataSubscriptionRequest,
  scalesOf,
} from './market-data.wire.js';
import { type StreamingCall, authenticateStream, ingressRefusal, refuse } from './server-stream.js';

/** upstream-facts: depth default 10 (spec 8: at most 10). */
const DEFAULT_DEPTH = 10;
const MAX_DEPTH = 10;
const MARKET_DATA = { scope: 'read:marketdata', accountScoped: false } as const;

/** Serves polymarket.v1.MarketDataSubscriptionAPI: the per-request subscription and the bidirectional stream. */
export function addMarketDataService(server: Server, service: ServiceDefinition, parts: ExchangeGrpcParts): void {
  server.addService(service, {
    CreateMarketDataSubscription: (call: ServerWritableStream<MarketDataSubscriptionRequest, MarketDataResponse>) =>
      subscribe(parts, call),
    BiDirectionalStreamMarketData: (call: ServerDuplexStream<MarketDataStreamRequest, MarketDataResponse>) =>
      bidirectional(parts, call),
  });
}

/** Spec §5.1.5 and §7 in upstream's order: token (UNAUTHENTICATED), scope (PERMISSION_DENIED), request, limit. */
function subscribe(
  parts: ExchangeGrpcParts,
  call: ServerWritableStream<MarketDataSubscriptionRequest, MarketDataResponse>,
): void {
  const registry = parts.marketDataStreams;
  const refused = (reason: string) => registry.refused(reason);
  const caller = authenticateStream(parts, call, MARKET_DATA, refused);
  if (!caller) return;
  const { request } = call;
  const books = requestedBooks(parts, request.symbols, request.symbols.length === 0);
  const depth = depthOf(request.depth);
  const problem = typeof books === 'string' ? books : depth;
  if (typeof problem === 'string') {
    refused('invalid_argument');
    return refuse(call, GrpcStatus.INVALID_ARGUMENT, problem);
  }
  const stream = streamFor(parts, call, 'CreateMarketDataSubscription', caller.client, depth as number);
  // `unaggregated` is accepted and ignored: the engine keeps price levels only.
  stream.open(
    books as Map<string, BookScales>,
    request.symbols.length === 0,
    request.snapshotOnly,
    registry.heartbeatMs,
  );
}

/**
 * One long-lived stream: the client adds and removes symbols with request messages, without
 * reconnecting. Each message counts against the firm's ingress; a bad one (unknown symbol, more than
 * 1,000 symbols on the stream) ends the stream with INVALID_ARGUMENT, as a status is the only answer
 * gRPC has for a request on a stream.
 */
function bidirectional(
  parts: ExchangeGrpcParts,
  call: ServerDuplexStream<MarketDataStreamRequest, MarketDataResponse>,
): void {
  const registry = parts.marketDataStreams;
  // The metadata is all there is at the start; the ingress is taken per message as they come.
  const caller = authenticateStream(parts, call, MARKET_DATA, (reason) => registry.refused(reason), false);
  if (!caller) return;
  const stream = streamFor(parts, call, 'BiDirectionalStreamMarketData', caller.client, DEFAULT_DEPTH);
  // In the firm's pool from its start, before any symbol: an idle stream is still a stream.
  if (!stream.open(new Map(), false, false, registry.heartbeatMs)) return;
  let first = true;
  call.on('data', (message: MarketDataStreamRequest) => {
    if (!stream.isOpen) return;
    if (!parts.streams.takeIngress(caller.client.firm))
      return stream.end(GrpcStatus.RESOURCE_EXHAUSTED, ingressRefusal(parts), 'ingress');
    if (first) {
      first = false;
      const depth = depthOf(message.depth);
      if (typeof depth === 'string') return stream.end(GrpcStatus.INVALID_ARGUMENT, depth, 'invalid_argument');
      stream.depth = depth;
    }
    change(parts, stream, message);
  });
  call.on('end', () => stream.end(GrpcStatus.OK, 'the client finished the stream', 'client_end'));
}

/** Removes, then adds: a message may swap symbols within the stream's 1,000. */
function change(parts: ExchangeGrpcParts, stream: MarketDataStream, message: MarketDataStreamRequest): void {
  stream.remove(message.removeSymbols);
  const adding = message.addSymbols.filter((symbol) => !stream.carries(symbol));
  const books = requestedBooks(parts, adding, false, stream.symbolCount);
  if (typeof books === 'string') return stream.end(GrpcStatus.INVALID_ARGUMENT, books, 'invalid_argument');
  stream.add(books);
}

function streamFor(
  parts: ExchangeGrpcParts,
  call: StreamingCall<unknown, MarketDataResponse>,
  name: string,
  client: { firm: string; clientId: string },
  depth: number,
): MarketDataStream {
  const terms = {
    call: name,
    firm: client.firm,
    clientId: client.clientId,
    depth,
    maxStreams: parts.config.maxStreamsPerFirm,
  };
  return new MarketDataStream(call, parts.streams, parts.marketDataStreams, parts.engine, terms);
}

function depthOf(requested: number): number | string {
  const depth = requested || DEFAULT_DEPTH;
  return depth < 0 || depth > MAX_DEPTH ? `depth must be between 1 and ${MAX_DEPTH}` : depth;
}

/**
 * The books a request asks for, in its order, or why it is refused. An unknown symbol refuses the
 * whole request (INVALID_ARGUMENT) rather than being skipped: a silent omission would leave a client
 * waiting for a snapshot that never comes. `carried` symbols already on the stream count to the cap.
 */
function requestedBooks(
  parts: ExchangeGrpcParts,
  symbols: readonly string[],
  wildcard: boolean,
  carried = 0,
): Map<string, BookScales> | string {
  const max = parts.config.maxSymbolsPerSubscription;
  if (new Set(symbols).size + carried > max) return `at most ${max} symbols per subscription`;
  const instruments = new Map(
    parts.engine
      .instruments()
      .filter((instrument) => parts.marketDataStreams.knows(instrument.symbol))
      .map((instrument) => [instrument.symbol, scalesOf(instrument)]),
  );
  if (wildcard) return instruments;
  const unknown = symbols.filter((symbol) => !instruments.has(symbol));
  if (unknown.length > 0) return `unknown symbol${unknown.length > 1 ? 's' : ''}: ${unknown.slice(0, 5).join(', ')}`;
  return new Map(symbols.map((symbol) => [symbol, instruments.get(symbol)!]));
}
