export { RetailFields, type RetailConfigView } from './config/retail.config.js';
export { RetailHttpClient, type RetailCall } from './client/retail-http.client.js';
export { RetailModule } from './retail.module.js';
export { RETAIL_BUCKETS, RETAIL_BUCKET_NAMES, RETAIL_BUDGETS } from './budget/retail-budgets.js';
export { MAX_BLOCK_SECONDS, blockingPlan } from './operations/blocking-deadline.js';
export type { RetailCaller } from './operations/retail-caller.js';
export { RetailOrders } from './operations/retail-orders.service.js';
export { RetailPortfolio } from './operations/retail-portfolio.service.js';
export {
  ACTIVITY_TYPES,
  ActivityTypeSchema,
  MARKET_STATES,
  MARKET_SUBSCRIPTION_TYPES,
  ORDER_INTENTS,
  ORDER_SIDES,
  OrderIntentSchema,
  PRIVATE_SUBSCRIPTION_TYPES,
  RETAIL_EXECUTION_TYPES,
  RETAIL_MANUAL_ORDER_INDICATORS,
  RETAIL_ORDER_STATES,
  RETAIL_ORDER_TYPES,
  RETAIL_TIME_IN_FORCES,
  RetailManualOrderIndicatorSchema,
  RetailOrderTypeSchema,
  RetailTimeInForceSchema,
  SORT_ORDERS,
  SortOrderSchema,
  type ActivityType,
  type MarketSubscriptionType,
  type OrderIntent,
  type OrderSide,
  type PrivateSubscriptionType,
  type RetailOrderType,
  type RetailSubscriptionType,
  type RetailTimeInForce,
  type SortOrder,
} from './schemas/retail-enums.schema.js';
export { AmountSchema, MarketSlugSchema, type Amount } from './schemas/retail-primitives.schema.js';
export {
  CancelAllOrdersSchema,
  CancelOrderSchema,
  ClosePositionSchema,
  CreateOrderSchema,
  ModifyOrderSchema,
  PreviewOrderSchema,
  SlippageToleranceSchema,
  type CancelAllOrders,
  type CancelOrder,
  type ClosePosition,
  type CreateOrder,
  type ModifyOrder,
  type PreviewOrder,
} from './schemas/order-request.schema.js';
export {
  CreateOrderResponseSchema,
  RetailExecutionSchema,
  RetailOrderSchema,
  type CreateOrderResponse,
  type RetailExecution,
  type RetailOrder,
} from './schemas/order.schema.js';
export {
  ActivitiesResponseSchema,
  ActivitySchema,
  PositionsResponseSchema,
  RetailBalanceSchema,
  RetailPositionSchema,
  type Activity,
  type RetailBalance,
  type RetailPosition,
} from './schemas/portfolio.schema.js';
export { RetailBboSchema, RetailBookSchema, type RetailBbo, type RetailBook } from './schemas/market-data.schema.js';
export {
  ActivitiesQuerySchema,
  NoQuerySchema,
  OpenOrdersQuerySchema,
  OrderIdParamsSchema,
  PositionsQuerySchema,
  SlugParamsSchema,
  type ActivitiesQuery,
  type OpenOrdersQuery,
  type PositionsQuery,
} from './schemas/query.schema.js';
export {
  parseRetailFrame,
  type RetailFrame,
  type RetailStreamEvent,
  type RetailStreamName,
} from './stream/retail-stream-message.js';
export { RETAIL_BOOK_TIMING, RetailMarketBooks, type RetailTouch } from './stream/retail-market-books.js';
export {
  RetailSocket,
  type RetailSocketOptions,
  type SubscriptionListener,
  type SubscriptionRequest,
} from './stream/retail-socket.js';
export { RetailPrivateChannels, type PrivateChannelListener } from './stream/retail-private-channels.js';
export {
  RETAIL_STREAM_OPTIONS,
  RetailStreams,
  type RetailChannel,
  type RetailStreamOptions,
} from './stream/retail-streams.service.js';
export { RetailTopicSource, parseRetailTopic, type RetailTopicPayload } from './stream/retail-topic.source.js';
export { RETAIL_TOPIC_FAMILIES, RetailTopics } from './stream/retail-topics.js';
