import type { TopicSourceRegistry } from '@lib/fanout';

import { type DropCopyFeed, EXCHANGE_DROP_COPY_POLICY, EXCHANGE_DROP_COPY_TOPIC, EXCHANGE_TRADES_TOPIC, type TradeCaptureFeed } from './resumable-feed.js';
import { EXCHANGE_MARKET_DATA_POLICY, EXCHANGE_MARKET_DATA_PREFIX, type MarketDataStreams } from './market-data-streams.service.js';
import { EXCHANGE_ORDERS_POLICY, EXCHANGE_ORDERS_PREFIX, type OrderUpdates } from './order-updates.service.js';

/** Registers the exchange topic families with the hub: market data (conflated), order updates and drop copy (account policy). */
export function registerExchangeTopics(registry: TopicSourceRegistry, sources: { marketData: MarketDataStreams; orders: OrderUpdates; dropCopy: DropCopyFeed; trades: TradeCaptureFeed }): void {
  registry.register(EXCHANGE_MARKET_DATA_PREFIX, sources.marketData, EXCHANGE_MARKET_DATA_POLICY);
  registry.register(EXCHANGE_ORDERS_PREFIX, sources.orders, EXCHANGE_ORDERS_POLICY);
  registry.register(EXCHANGE_DROP_COPY_TOPIC, sources.dropCopy, EXCHANGE_DROP_COPY_POLICY);
  registry.register(EXCHANGE_TRADES_TOPIC, sources.trades, EXCHANGE_DROP_COPY_POLICY);
}
