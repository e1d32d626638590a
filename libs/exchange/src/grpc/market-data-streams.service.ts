import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { type Client, Metadata, credentials } from '@grpc/grpc-js';
import { ExchangeTokenProvider } from '@lib/auth';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, type GatewayConfig, MetricsRegistry, SystemClock } from '@lib/core';
import { MARKET_DATA_POLICY, type TopicPolicy, type TopicSink, type TopicSource, type TopicSourceRegistry, UnknownTopicError } from '@lib/fanout';

import { FEED_TIMING, type FeedTiming } from './feed-timing.js';
import { MarketDataMetrics } from './market-data.metrics.js';
import type { MarketDataSubscriptionRequest } from './market-data.messages.js';
import { type MarketDataProto, loadMarketDataProto } from './market-data.proto.js';
import { type FeedDeps, SymbolFeed } from './symbol-feed.js';
import { type CallListener, type StreamToken, UpstreamCall } from './upstream-call.js';

export const EXCHANGE_MARKET_DATA_PREFIX = 'exchange.marketData.';

/** The most levels the exchange serves (spec 8); subscribers pick what they show. */
const DEPTH = 10;

/**
 * The fan-out hub's source for `exchange.marketData.<symbol>`: one CreateMarketDataSubscription
 * stream per open topic, all multiplexed on one HTTP/2 connection to the configured gRPC target.
 * The exchange allows 20 concurrent streams per firm (upstream-facts) and a renewal briefly holds a
 * second one, so 19 topics renew without loss; the hub's cluster leases keep each topic open on one
 * instance only, so the limit is the cluster's, not each instance's.
 */
@Injectable()
export class MarketDataStreams implements TopicSource, OnApplicationShutdown {
  private readonly logger = new Logger(MarketDataStreams.name);
  private readonly feeds = new Map<string, SymbolFeed>();
  private readonly target: string;
  private readonly tls: boolean;
  private readonly protoDir: string;
  private readonly metrics: MarketDataMetrics;
  private readonly clock: Clock;
  private readonly deps: FeedDeps;
  private connection?: { proto: MarketDataProto; client: Client };

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly tokens: ExchangeTokenProvider,
    registry: MetricsRegistry,
    // Optional like in libs/auth: a Clock provided only in the app's root module is not visible here.
    @Optional() clock?: Clock,
  ) {
    const environment = config.environments[config.environment]!;
    this.target = environment.grpcTarget;
    this.tls = environment.grpcTls;
    this.protoDir = config.exchange.protoDir;
    this.metrics = new MarketDataMetrics(registry);
    this.clock = clock ?? new SystemClock();
    this.deps = this.feedDeps(FEED_TIMING);
  }

  /** Resolves once the symbol's first snapshot reached `sink`; a second open of a topic replaces the first. */
  async open(topic: string, sink: TopicSink): Promise<void> {
    const symbol = topic.startsWith(EXCHANGE_MARKET_DATA_PREFIX) ? topic.slice(EXCHANGE_MARKET_DATA_PREFIX.length) : '';
    if (!symbol) throw new UnknownTopicError(topic);
    if (!this.tokens.configured) throw new DomainError(ErrorCode.UPSTREAM_AUTH_UNAVAILABLE, 'No exchange client is configured for this environment.');
    this.close(topic);
    const feed = new SymbolFeed(symbol, sink, this.deps);
    this.feeds.set(topic, feed);
    try {
      await feed.start();
    } catch (error) {
      if (this.feeds.get(topic) === feed) this.feeds.delete(topic);
      throw error;
    }
  }

  close(topic: string): void {
    const feed = this.feeds.get(topic);
    if (!feed) return;
    this.feeds.delete(topic);
    feed.close();
  }

  /** Topics with a feed now. */
  topics(): string[] {
    return [...this.feeds.keys()];
  }

  onApplicationShutdown(): void {
    for (const topic of this.topics()) this.close(topic);
    this.connection?.client.close();
    this.connection = undefined;
  }

  private feedDeps(timing: FeedTiming): FeedDeps {
    return {
      token: () => this.token(),
      open: (symbol, token, listener) => this.openCall(symbol, token, listener),
      rejected: (authorization) => this.tokens.rejected(authorization),
      metrics: this.metrics,
      timing,
      now: () => this.clock.now(),
      warn: (message) => this.logger.warn(message),
    };
  }

  /** The token a new stream will carry, with its expiry: the stream is renewed from that. */
  private async token(): Promise<StreamToken> {
    const authorization = await this.tokens.authorization(this.target);
    const status = this.tokens.status();
    const expiresInMs = (status.expiresInSeconds ?? 0) * 1000;
    return { authorization, expiresAt: this.clock.now() + expiresInMs, lifetimeMs: expiresInMs + (status.tokenAgeSeconds ?? 0) * 1000 };
  }

  private openCall(symbol: string, token: StreamToken, listener: CallListener): UpstreamCall {
    const { proto, client } = this.connect();
    const metadata = new Metadata();
    metadata.set('authorization', token.authorization);
    const request: MarketDataSubscriptionRequest = { symbols: [symbol], depth: DEPTH };
    const { path, requestSerialize, responseDeserialize } = proto.subscribe;
    const stream = client.makeServerStreamRequest(path, requestSerialize, responseDeserialize, request, metadata);
    return new UpstreamCall(stream, token, listener, this.metrics, this.deps.timing.silenceMs);
  }

  /** Protos are read on first use, so a deployment without exchange streams never needs the files. */
  private connect(): { proto: MarketDataProto; client: Client } {
    if (!this.connection) {
      const proto = loadMarketDataProto(this.protoDir);
      const channelCredentials = this.tls ? credentials.createSsl() : credentials.createInsecure();
      this.connection = { proto, client: new proto.Client(this.target, channelCredentials) };
    }
    return this.connection;
  }
}

/** The firm's exchange streams (upstream-facts: 20 concurrent per firm, every streaming RPC together). */
export const EXCHANGE_STREAM_POOL = 'exchange';

/**
 * Every message is the symbol's full book, so the latest one is the snapshot late joiners need. Each
 * topic is one upstream stream today, so it costs one stream of the firm's pool while it is open.
 */
export const EXCHANGE_MARKET_DATA_POLICY: TopicPolicy = {
  ...MARKET_DATA_POLICY,
  merge: (_snapshot, update) => update,
  capacity: { pool: EXCHANGE_STREAM_POOL, kind: 'marketData' },
};

/** Registers the exchange market-data topics with the hub. */
export function registerExchangeTopics(registry: TopicSourceRegistry, streams: MarketDataStreams): void {
  registry.register(EXCHANGE_MARKET_DATA_PREFIX, streams, EXCHANGE_MARKET_DATA_POLICY);
}
