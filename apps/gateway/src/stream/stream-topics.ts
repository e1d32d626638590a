import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { GATEWAY_CONFIG, type GatewayConfig } from '@lib/core';
import { DropCopyFeed, InstrumentStateFeed, MarketDataStreams, OrderUpdates, PositionChanges, TradeCaptureFeed, registerExchangeTopics } from '@lib/exchange';
import { TopicSourceRegistry } from '@lib/fanout';
import { RetailStreams, RetailTopicSource, registerRetailTopics } from '@lib/retail';

/**
 * Registers the stream clients with the hub at start. Retail account topics name their account
 * (`retail.account.<account>.…`) or are the environment's first retail account's: a retail stream is
 * per key, and the hub keys topics by name only.
 */
@Injectable()
export class StreamTopics implements OnModuleInit {
  private readonly logger = new Logger(StreamTopics.name);
  readonly retailAccount: string | undefined;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly registry: TopicSourceRegistry,
    private readonly retailStreams: RetailStreams,
    private readonly marketData: MarketDataStreams,
    private readonly orders: OrderUpdates,
    private readonly dropCopy: DropCopyFeed,
    private readonly trades: TradeCaptureFeed,
    private readonly positions: PositionChanges,
    private readonly instrumentState: InstrumentStateFeed,
  ) {
    this.retailAccount = config.environments[config.environment]?.retailAccounts[0]?.name;
  }

  onModuleInit(): void {
    const { marketData, orders, dropCopy, trades, positions, instrumentState } = this;
    registerExchangeTopics(this.registry, { marketData, orders, dropCopy, trades, positions, instrumentState });
    if (this.retailAccount) registerRetailTopics(this.registry, new RetailTopicSource(this.retailStreams, this.retailAccount));
    else this.logger.warn('No retail account is configured: retail.* topics are not served.');
  }
}
