import type { OrderState, OrderStateFilter, OrderType, Side } from './engine.enums.js';
import type { DateObject } from './instrument.types.js';
import type { OrderRecord } from './order-record.js';
import type { Execution, Order, Trade } from './order.types.js';
import { pageOf, type PageQuery } from './paging.js';
import { dateKey, tradeDateOf } from './trade-date.js';

/** Spec 4.1 order search; times are epoch ms and both ends are inclusive. */
export interface OrderSearchQuery extends PageQuery {
  orderId?: string;
  clordId?: string;
  /** On createTime. */
  startTime?: number;
  endTime?: number;
  symbol?: string;
  accounts?: string[];
  side?: Side;
  type?: OrderType;
  orderStateFilter?: OrderStateFilter;
  crossId?: string;
  hostCrossId?: string;
  clientAccountId?: string;
  clientParticipantId?: string;
  parentOrderId?: string;
  /** On the trade date of lastTransactTime. */
  startTransactTradeDate?: DateObject;
  endTransactTradeDate?: DateObject;
  withLastExecution?: boolean;
}

/** The response field holding the orders is `order` (upstream-facts). */
export interface OrderSearchResult {
  order: Order[];
  nextPageToken: string;
  lastExecutions: Execution[];
}

export interface TradeListQuery extends PageQuery {
  symbol?: string;
  /** Trades where any of these accounts bought or sold. */
  accounts?: string[];
  orderId?: string;
  startTime?: number;
  endTime?: number;
}

const OPEN: ReadonlySet<OrderState> = new Set([
  'ORDER_STATE_NEW',
  'ORDER_STATE_PARTIALLY_FILLED',
  'ORDER_STATE_PENDING_NEW',
  'ORDER_STATE_PENDING_REPLACE',
  'ORDER_STATE_PENDING_CANCEL',
  'ORDER_STATE_PENDING_RISK',
]);

/** OPEN and CLOSED group states; every other filter value names one state. */
export function stateMatches(filter: OrderStateFilter, state: OrderState): boolean {
  if (filter === 'ORDER_STATE_FILTER_OPEN') return OPEN.has(state);
  if (filter === 'ORDER_STATE_FILTER_CLOSED') return !OPEN.has(state);
  return filter.replace('ORDER_STATE_FILTER_', 'ORDER_STATE_') === state;
}

export function searchOrders(records: readonly OrderRecord[], query: OrderSearchQuery): OrderSearchResult {
  const tests = orderTests(query);
  const page = pageOf(records, query, 'orders', (rec) => tests.every((test) => test(rec.order)));
  const lastExecutions = query.withLastExecution
    ? page.items.flatMap((rec) => (rec.lastExecution ? [rec.lastExecution] : []))
    : [];
  return { order: page.items.map((rec) => rec.snapshot()), nextPageToken: page.nextPageToken, lastExecutions };
}

export function listTrades(
  trades: readonly Trade[],
  query: TradeListQuery,
): { trades: Trade[]; nextPageToken: string } {
  const accounts = query.accounts && query.accounts.length > 0 ? new Set(query.accounts) : undefined;
  const keep = (trade: Trade): boolean =>
    (!query.symbol || trade.symbol === query.symbol) &&
    (!accounts || accounts.has(trade.buyAccount) || accounts.has(trade.sellAccount)) &&
    (!query.orderId || trade.buyOrderId === query.orderId || trade.sellOrderId === query.orderId) &&
    within(trade.transactTime, query.startTime, query.endTime);
  // Callers pass one symbol's trades when the query names a symbol, hence the symbol in the token kind.
  const page = pageOf(trades, query, `trades/${query.symbol ?? ''}`, keep);
  return { trades: page.items.map((trade) => ({ ...trade })), nextPageToken: page.nextPageToken };
}

/** Only the filters the query sets, so an empty query costs nothing per order. */
function orderTests(query: OrderSearchQuery): ((order: Order) => boolean)[] {
  const tests: ((order: Order) => boolean)[] = [];
  const equal = <K extends keyof Order>(key: K, value: Order[K] | undefined): void => {
    if (value !== undefined && value !== '') tests.push((order) => order[key] === value);
  };
  equal('id', query.orderId);
  equal('clordId', query.clordId);
  equal('symbol', query.symbol);
  equal('side', query.side);
  equal('type', query.type);
  equal('crossId', query.crossId);
  equal('hostCrossId', query.hostCrossId);
  equal('clientAccountId', query.clientAccountId);
  equal('clientParticipantId', query.clientParticipantId);
  equal('parentOrderId', query.parentOrderId);
  const { accounts, orderStateFilter: filter, startTransactTradeDate: from, endTransactTradeDate: to } = query;
  if (accounts && accounts.length > 0) tests.push((order) => accounts.includes(order.account));
  if (filter) tests.push((order) => stateMatches(filter, order.state));
  if (query.startTime !== undefined || query.endTime !== undefined)
    tests.push((order) => within(order.createTime, query.startTime, query.endTime));
  if (from || to) {
    const [low, high] = [from ? dateKey(from) : undefined, to ? dateKey(to) : undefined];
    tests.push((order) => within(dateKey(tradeDateOf(order.lastTransactTime)), low, high));
  }
  return tests;
}

function within(value: number, low: number | undefined, high: number | undefined): boolean {
  return (low === undefined || value >= low) && (high === undefined || value <= high);
}
