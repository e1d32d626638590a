// The engine's front door: the sandbox's exchange, market-data and retail surfaces import from here only.
export { MatchingEngine, type BatchItem, type MatchingEngineOptions } from './matching-engine.js';
export { EngineError, EngineErrorCode, engineErrorStatus } from './engine.error.js';
export { binaryContract, instrumentsFixture, type BinaryContractSpec } from './instruments.fixture.js';
export { firmOf } from './order-factory.js';
export { stateMatches } from './order-search.js';
export * from './engine.enums.js';
export type * from './instrument.types.js';
export type * from './order.types.js';
export type { Bbo, BookSnapshot, BookStats } from './book-snapshot.types.js';
export type { BookLevel } from './book-side.js';
export type {
  BalanceEvent,
  BookEvent,
  CancelRejectEvent,
  EngineEventKind,
  EngineEventMap,
  EngineListener,
  ExecutionEvent,
  InstrumentEvent,
  PositionEvent,
  TradeEvent,
} from './engine-events.js';
export type { StateChangeOptions } from './instrument-states.js';
export type { PreviewResult } from './order-entry.js';
export type { SessionStats } from './order-book.js';
export type { OrderSearchQuery, OrderSearchResult, TradeListQuery } from './order-search.js';
export type { PageQuery } from './paging.js';
export type { Balance, Position } from './position-ledger.js';
export type { TradeStatistics, TradeStatsQuery, TradeStatsResult } from './trade-stats.js';
