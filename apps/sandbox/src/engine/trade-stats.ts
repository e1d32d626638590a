import { EngineError, EngineErrorCode } from './engine.error.js';
import type { DateObject } from './instrument.types.js';
import type { Trade } from './order.types.js';
import { dateKey } from './trade-date.js';

/** Spec 2.7: every field a decimal string; prices with no trade are "0". Notional is price x qty. */
export interface TradeStatistics {
  first: string;
  last: string;
  high: string;
  low: string;
  totalTradeCount: string;
  clearedTradeCount: string;
  volume: string;
  clearedVolume: string;
  notional: string;
  clearedNotional: string;
}

/** Spec 4.1; times epoch ms. Without startTime the range starts at the first matching trade, without endTime it ends now. */
export interface TradeStatsQuery {
  symbol?: string;
  startTime?: number;
  endTime?: number;
  /** Number of equal buckets between start and end (upstream-facts); 0 or absent gives none. */
  bars?: number;
  startTradeDate?: DateObject;
  endTradeDate?: DateObject;
}

export interface TradeStatsResult {
  stats: TradeStatistics;
  bars: TradeStatistics[];
  barStartTime: number[];
  barEndTime: number[];
}

const MAX_BARS = 10_000;

export function tradeStatistics(trades: readonly Trade[], query: TradeStatsQuery, now: number): TradeStatsResult {
  const bars = query.bars ?? 0;
  if (!Number.isSafeInteger(bars) || bars < 0 || bars > MAX_BARS) {
    throw new EngineError(EngineErrorCode.INVALID_REQUEST, `bars must be an integer from 0 to ${MAX_BARS}`);
  }
  const selected = trades.filter((trade) => selects(query, trade));
  const start = query.startTime ?? selected[0]?.transactTime ?? now;
  const end = query.endTime ?? now;
  if (end < start) throw new EngineError(EngineErrorCode.INVALID_REQUEST, 'endTime is before startTime');
  const inRange = selected.filter((trade) => trade.transactTime >= start && trade.transactTime <= end);
  const buckets: Trade[][] = Array.from({ length: bars }, () => []);
  const width = (end - start) / bars;
  for (const trade of inRange) {
    // The last bucket also takes trades exactly at `end`.
    const index = width > 0 ? Math.min(bars - 1, Math.floor((trade.transactTime - start) / width)) : 0;
    buckets[index]?.push(trade);
  }
  return {
    stats: summarize(inRange),
    bars: buckets.map(summarize),
    barStartTime: buckets.map((_, i) => Math.round(start + i * width)),
    barEndTime: buckets.map((_, i) => Math.round(start + (i + 1) * width)),
  };
}

function selects(query: TradeStatsQuery, trade: Trade): boolean {
  const day = dateKey(trade.transactTradeDate);
  return (
    (!query.symbol || trade.symbol === query.symbol) &&
    (!query.startTradeDate || day >= dateKey(query.startTradeDate)) &&
    (!query.endTradeDate || day <= dateKey(query.endTradeDate))
  );
}

function summarize(trades: readonly Trade[]): TradeStatistics {
  let high = trades.length > 0 ? Number.NEGATIVE_INFINITY : 0;
  let low = trades.length > 0 ? Number.POSITIVE_INFINITY : 0;
  const all = { count: 0, volume: 0, notional: 0 };
  const cleared = { count: 0, volume: 0, notional: 0 };
  for (const trade of trades) {
    high = Math.max(high, trade.px);
    low = Math.min(low, trade.px);
    for (const sum of trade.cleared ? [all, cleared] : [all]) {
      sum.count++;
      sum.volume += trade.qty;
      sum.notional += trade.px * trade.qty;
    }
  }
  return {
    first: String(trades[0]?.px ?? 0),
    last: String(trades[trades.length - 1]?.px ?? 0),
    high: String(high),
    low: String(low),
    totalTradeCount: String(all.count),
    clearedTradeCount: String(cleared.count),
    volume: String(all.volume),
    clearedVolume: String(cleared.volume),
    notional: String(all.notional),
    clearedNotional: String(cleared.notional),
  };
}
