import { Inject, Injectable, Logger, type OnModuleInit, Optional } from '@nestjs/common';
import { RETAIL_ACCOUNT_NAME } from '@lib/auth';
import { GATEWAY_CONFIG } from '@lib/core';
import { ACCOUNT_POLICY, MARKET_DATA_POLICY, type TopicFamily, TopicSourceRegistry } from '@lib/fanout';

import { RetailMarketBooks } from './retail-market-books.js';
import { RetailTopicSource } from './retail-topic.source.js';
import { RetailStreams } from './retail-streams.service.js';
import type { RetailConfigView } from '../config/retail.config.js';

const market = (family: string, description: string): TopicFamily => ({
  syntax: `retail.${family}.<slug>`,
  scope: 'read:marketdata',
  account: false,
  policy: MARKET_DATA_POLICY,
  description,
});

/** An account topic of the default account, or (`named`) of the account the topic names. */
const account = (family: string, scope: TopicFamily['scope'], description: string, named: boolean): TopicFamily => ({
  syntax: named ? `retail.account.<account>.${family}` : `retail.${family}`,
  scope,
  account: true,
  placeholders: { account: RETAIL_ACCOUNT_NAME },
  policy: ACCOUNT_POLICY,
  description: `${description}; ${named ? 'of the retail account the topic names' : "of the gateway's default retail account (the environment's first)"}, which the client must be allowed.`,
});

const ACCOUNT_FAMILIES = [
  ['orders[.<slug>]', 'read:orders', 'order updates, of one market or (without a slug) of all'],
  ['positions', 'read:positions', 'position updates'],
  ['balances', 'read:positions', 'account balance updates'],
] as const;

/**
 * The retail topic families, one declaration each, all sourced by `RetailTopicSource`
 * (parseRetailTopic reads them): per-market topics on the markets channel, account topics on the
 * private channel. Trades are events, so they are never conflated away.
 */
export const RETAIL_TOPIC_FAMILIES: readonly TopicFamily[] = [
  market('marketData', 'the market data of one market (conflated: a slow client gets the latest frame)'),
  market('marketDataLite', 'the lighter market data of one market (conflated)'),
  { ...market('trade', 'the trades of one market, never conflated'), policy: { conflate: false } },
  ...ACCOUNT_FAMILIES.map(([family, scope, description]) => account(family, scope, description, false)),
  ...ACCOUNT_FAMILIES.map(([family, scope, description]) => account(family, scope, description, true)),
];

/**
 * Declares the retail topic families with the hub at start. Retail account topics name their account
 * (`retail.account.<account>.…`) or are the environment's first retail account's: a retail stream is
 * per key, and the hub keys topics by name only. Without a retail account no retail topic is served.
 */
@Injectable()
export class RetailTopics implements OnModuleInit {
  private readonly logger = new Logger(RetailTopics.name);
  /** The account of account topics that name none. */
  readonly defaultAccount: string | undefined;

  constructor(
    @Inject(GATEWAY_CONFIG) config: RetailConfigView,
    private readonly streams: RetailStreams,
    private readonly books: RetailMarketBooks,
    @Optional() @Inject(TopicSourceRegistry) private readonly registry: TopicSourceRegistry | null,
  ) {
    this.defaultAccount = config.environments[config.environment]?.retailAccounts[0]?.name;
  }

  onModuleInit(): void {
    if (!this.registry) return;
    if (!this.defaultAccount)
      return this.logger.warn('No retail account is configured: retail.* topics are not served.');
    const source = new RetailTopicSource(this.streams, this.defaultAccount, this.books);
    for (const family of RETAIL_TOPIC_FAMILIES) this.registry.add(family, source);
  }
}
