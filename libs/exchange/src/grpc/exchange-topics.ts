import type { TopicSourceRegistry } from '@lib/fanout';

import { EXCHANGE_MARKET_DATA_POLICY, EXCHANGE_MARKET_DATA_PREFIX, type MarketDataStreams } from './market-data-streams.service.js';
import { EXCHANGE_ORDERS_POLICY, EXCHANGE_ORDERS_PREFIX, type OrderUpdates } from './order-updates.service.js';

/** Registers the exchange topic families with the hub: market data (conflated) and order updates (account policy). */
export function registerExchangeTopics(registry: TopicSourceRegistry, sources: { marketData: MarketDataStreams; orders: OrderUpdates }): void {
  registry.register(EXCHANGE_MARKET_DATA_PREFIX, sources.marketData, EXCHANGE_MARKET_DATA_POLICY);
  registry.register(EXCHANGE_ORDERS_PREFIX, sources.orders, EXCHANGE_ORDERS_POLICY);
}
