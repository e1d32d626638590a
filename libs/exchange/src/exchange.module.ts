import { Inject, Module } from '@nestjs/common';
import { AuthModule } from '@lib/auth';
import { GATEWAY_CONFIG } from '@lib/core';
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
import type { ExchangeTier } from './config/exchange-tier.config.js';

const OPERATIONS = [ExchangeAccounts, ExchangeMarketData, ExchangeReferenceData, ExchangeReports, ExchangeTrading];

/** What the gateway's other parts use of this lib (the operations, the streams and their taps). */
const EXPORTED = [
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
];

@Module({
  exports: EXPORTED,
  imports: [AuthModule, RateLimitModule, UpstreamModule],
  providers: [...EXPORTED, PositionChangeFeed, ExchangeTopics],
})
export class ExchangeModule {
  /** Hands the limiter the buckets this lib's calls spend, at the firm's tier. */
  constructor(limiter: RateLimiter, @Inject(GATEWAY_CONFIG) config: { limits: { exchangeTier: ExchangeTier } }) {
    limiter.buckets.declare(...exchangeBuckets(config.limits.exchangeTier));
  }
}
