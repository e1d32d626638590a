import { Module } from '@nestjs/common';
import { AuthModule } from '@lib/auth';
import { RateLimiter, RateLimitModule } from '@lib/ratelimit';
import { UpstreamModule } from '@lib/upstream';

import { RETAIL_BUCKETS } from './budget/retail-budgets.js';
import { RetailHttpClient } from './client/retail-http.client.js';
import { RetailOrders } from './operations/retail-orders.service.js';
import { RetailPortfolio } from './operations/retail-portfolio.service.js';
import { RetailMarketBooks } from './stream/retail-market-books.js';
import { RetailPrivateChannels } from './stream/retail-private-channels.js';
import { RetailStreams } from './stream/retail-streams.service.js';
import { RetailTopics } from './stream/retail-topics.js';

/** Every provider of this lib is for its importers. */
const SERVICES = [
  RetailHttpClient,
  RetailMarketBooks,
  RetailOrders,
  RetailPortfolio,
  RetailPrivateChannels,
  RetailStreams,
  RetailTopics,
];

@Module({
  exports: SERVICES,
  imports: [AuthModule, RateLimitModule, UpstreamModule],
  providers: SERVICES,
})
export class RetailModule {
  /** Hands the limiter the buckets this lib's calls spend. */
  constructor(limiter: RateLimiter) {
    limiter.buckets.declare(...RETAIL_BUCKETS);
  }
}
