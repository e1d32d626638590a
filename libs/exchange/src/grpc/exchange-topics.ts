import type { TopicPolicy, TopicSourceRegistry } from '@lib/fanout';

import type { StreamKind } from './exchange-stream.metrics.js';
import { DROP_COPY_VIEW, TRADES_VIEW, firmWideFeed } from './firm-feed.view.js';
import { EXCHANGE_INSTRUMENT_STATE_POLICY, EXCHANGE_INSTRUMENT_STATE_TOPIC, type InstrumentStateFeed } from './instrument-state.feed.js';
import { type DropCopyFeed, EXCHANGE_DROP_COPY_POLICY, EXCHANGE_DROP_COPY_TOPIC, EXCHANGE_TRADES_TOPIC, type TradeCaptureFeed } from './resumable-feed.js';
import { EXCHANGE_MARKET_DATA_POLICY, EXCHANGE_MARKET_DATA_PREFIX, EXCHANGE_STREAM_POOL, type MarketDataStreams } from './market-data-streams.service.js';
import { EXCHANGE_ORDERS_POLICY, EXCHANGE_ORDERS_PREFIX, type OrderUpdates } from './order-updates.service.js';
import { EXCHANGE_POSITIONS_POLICY, EXCHANGE_POSITIONS_PREFIX, type PositionChanges } from './position-changes.service.js';

export interface ExchangeTopicSources {
  marketData: MarketDataStreams;
  orders: OrderUpdates;
  dropCopy: DropCopyFeed;
  trades: TradeCaptureFeed;
  positions: PositionChanges;
  instrumentState: InstrumentStateFeed;
}

/**
 * A family whose topics hold upstream streams: each open topic claims one of the firm's streams
 * (the `exchange` pool) with its kind. Exact for the firm-wide topics (drop copy, trades,
 * instrument state: one leader-held call each). Conservative for `exchange.orders.<participant>`
 * and `exchange.positions.<participant>`: their participants share one call per holding instance,
 * so the pool counts at least as many streams as are open (one per participant topic), never fewer.
 */
function claimingStreams(policy: TopicPolicy, kind: StreamKind): TopicPolicy {
  return { ...policy, capacity: { pool: EXCHANGE_STREAM_POOL, kind } };
}

/**
 * Registers the exchange topic families with the hub: market data (conflated, spends the symbols
 * pool: its streams are the pool's reserve), the others account-policy topics claiming streams;
 * the firm-wide ones (drop copy, trades) narrowed to what each client holds.
 */
export function registerExchangeTopics(registry: TopicSourceRegistry, sources: ExchangeTopicSources): void {
  registry.register(EXCHANGE_MARKET_DATA_PREFIX, sources.marketData, EXCHANGE_MARKET_DATA_POLICY);
  registry.register(EXCHANGE_ORDERS_PREFIX, sources.orders, claimingStreams(EXCHANGE_ORDERS_POLICY, 'orders'));
  // The firm-wide feeds: each client sees the records of the participants it holds (firm-feed.view.ts).
  registry.register(EXCHANGE_DROP_COPY_TOPIC, sources.dropCopy, claimingStreams(firmWideFeed(EXCHANGE_DROP_COPY_POLICY, DROP_COPY_VIEW), 'dropCopy'));
  registry.register(EXCHANGE_TRADES_TOPIC, sources.trades, claimingStreams(firmWideFeed(EXCHANGE_DROP_COPY_POLICY, TRADES_VIEW), 'trades'));
  registry.register(EXCHANGE_POSITIONS_PREFIX, sources.positions, claimingStreams(EXCHANGE_POSITIONS_POLICY, 'positions'));
  registry.register(EXCHANGE_INSTRUMENT_STATE_TOPIC, sources.instrumentState, claimingStreams(EXCHANGE_INSTRUMENT_STATE_POLICY, 'instrumentState'));
}
