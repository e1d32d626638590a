export { ExchangeHttpClient, type ExchangeCall } from './client/exchange-http.client.js';
export { ExchangeModule } from './exchange.module.js';
export { EXCHANGE_TIERS, ExchangeLimitsFields, type ExchangeTier } from './config/exchange-tier.config.js';
export {
  ExchangeClientFields,
  ExchangeFields,
  type ExchangeConfigView,
  type ExchangeSettings,
} from './config/exchange.config.js';
export { EXCHANGE_BUCKET_NAMES, EXCHANGE_BUDGETS, exchangeBuckets } from './budget/exchange-budgets.js';
export {
  EXCHANGE_MARKET_DATA_POLICY,
  EXCHANGE_MARKET_DATA_PREFIX,
  EXCHANGE_STREAM_POOL,
  EXCHANGE_SYMBOL_POOL,
  MarketDataStreams,
} from './grpc/market-data-streams.service.js';
export { ExchangeStreamMetrics, type StreamKind } from './grpc/exchange-stream.metrics.js';
export { EXCHANGE_ORDERS_POLICY, EXCHANGE_ORDERS_PREFIX, OrderUpdates } from './grpc/order-updates.service.js';
export { type OrderSnapshotListener, type OrderStreamListener, OrderStreamTap } from './grpc/order-stream-tap.js';
export type {
  CancelRejectMessage,
  ExecutionMessage,
  OrderMessage,
  OrdersSnapshot,
  OrdersUpdate,
} from './grpc/order-updates.messages.js';
export { EXCHANGE_TOPIC_FAMILIES, type ExchangeTopicSources, ExchangeTopics } from './grpc/exchange-topics.js';
export { EXCHANGE_INSTRUMENT_STATE_TOPIC, InstrumentStateFeed } from './grpc/instrument-state.feed.js';
export { EXCHANGE_POSITIONS_PREFIX, PositionChanges, type PositionHolder } from './grpc/position-changes.service.js';
export {
  DropCopyFeed,
  EXCHANGE_DROP_COPY_POLICY,
  EXCHANGE_DROP_COPY_TOPIC,
  EXCHANGE_TRADES_TOPIC,
  TradeCaptureFeed,
} from './grpc/resumable-feed.js';
export type * from './grpc/market-data.messages.js';
export {
  DEFAULT_PROTO_DIR,
  MARKET_DATA_SERVICE,
  loadMarketDataProto,
  type MarketDataProto,
} from './grpc/market-data.proto.js';
export { assertBatchSize } from './operations/batch-size.js';
export type { AccountCallerContext, CallerContext } from './operations/caller-context.js';
export { ExchangeAccounts } from './operations/exchange-accounts.service.js';
export {
  type BookReply,
  ExchangeMarketData,
  type StreamedBookReply,
} from './operations/exchange-market-data.service.js';
export { ExchangeReferenceData } from './operations/exchange-reference-data.service.js';
export { InstrumentDirectory } from './operations/instrument-directory.service.js';
export { ExchangeReports } from './operations/exchange-reports.service.js';
export { ExchangeTrading, withClordId } from './operations/exchange-trading.service.js';
export * from './schemas/exchange-enums.schema.js';
export * from './schemas/exchange-order.schema.js';
export * from './schemas/funding.schema.js';
export * from './schemas/identity-fields.schema.js';
export * from './schemas/instrument-list.schema.js';
export * from './schemas/instrument.schema.js';
export * from './schemas/order-book.schema.js';
export * from './schemas/path-params.schema.js';
export * from './schemas/order-request.schema.js';
export * from './schemas/order-search.schema.js';
export * from './schemas/trade-stats.schema.js';
export * from './schemas/wire-types.schema.js';
