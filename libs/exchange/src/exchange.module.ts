import { Inject, Module } from '@nestjs/common';
import { AuthModule } from '@lib/auth';
import { GATEWAY_CONFIG, type GatewayConfig } from '@lib/core';
import { RateLimiter, RateLimitModule } from '@lib/ratelimit';
import { UpstreamModule } from '@lib/upstream';

import { exchangeBuckets } from './budget/exchange-budgets.js';

import { ExchangeHttpClient } from './client/exchange-http.client.js';
import { ExchangeTopics } from './grpc/exchange-topics.js';
import { DropCopyFeed, TradeCaptureFeed } from './grpc/resumable-feed.js';
import { InstrumentStateFeed } from './grpc/instrument-state.feed.js';
import { PositionChangeFeed, PositionChanges } from './grpc/position-changes.service.js';
import { MarketDataStreams } from './grpc/market-data-streams.service.js';
import { OrderStreamTap } from './grpc/order-stream-tap.js';
import { OrderUpdates } from './grpc/order-updates.service.js';
import { ExchangeAccounts } from './operations/exchange-accounts.service.js';
import { ExchangeMarketData } from './operations/exchange-market-data.service.js';
import { ExchangeReferenceData } from './operations/exchange-reference-data.service.js';
import { ExchangeReports } from './operations/exchange-reports.service.js';
import { ExchangeTrading } from './operations/exchange-trading.service.js';
import { InstrumentDirectory } from './operations/instrument-directory.service.js';

const OPERATIONS = [ExchangeAccounts, ExchangeMarketData, ExchangeReferenceData, ExchangeReports, ExchangeTrading];

@Module({
  exports: [
    ExchangeHttpClient,
    InstrumentDirectory,
    MarketDataStreams,
    OrderUpdates,
    OrderStreamTap,
    DropCopyFeed,
    TradeCaptureFeed,
    PositionChanges,
    InstrumentStateFeed,
    ...OPERATIONS,
  ],
  imports: [AuthModule, RateLimitModule, UpstreamModule],
  providers: [
    ExchangeHttpClient,
    InstrumentDirectory,
    MarketDataStreams,
    OrderUpdates,
    OrderStreamTap,
    DropCopyFeed,
    TradeCaptureFeed,
    PositionChangeFeed,
    PositionChanges,
    InstrumentStateFeed,
    ExchangeTopics,
    ...OPERATIONS,
  ],
})
export class ExchangeModule {
  /** Hands the limiter the buckets this lib's calls spend, at the firm's tier. */
  constructor(limiter: RateLimiter, @Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    limiter.buckets.declare(...exchangeBuckets(config.limits.exchangeTier));
  }
}
