import type { Execution } from '../../../engine/index.js';
import {
  type ProtoRecord,
  executionMessage,
  instrumentMessage,
  positionMessage,
  timestamp,
} from '../wire/stream-records.js';
import { int64 } from '../../wire/int64-wire.js';
import type { LogRecord, TradeRecord } from './drop-copy-log.js';
import type { LogView } from './log-stream.js';

export interface RecordFilter {
  /** `firms/<FIRM>` whose records the stream carries; undefined: public records (instrument state). */
  firm?: string;
  /** Empty: every symbol. */
  symbols: ReadonlySet<string>;
}

function carries(filter: RecordFilter, record: LogRecord): boolean {
  if (filter.symbols.size > 0 && !filter.symbols.has(record.symbol)) return false;
  return filter.firm === undefined || record.firms.includes(filter.firm);
}

export function executionsView(filter: RecordFilter): LogView {
  return {
    item: (record) =>
      record.kind === 'execution' && carries(filter, record) ? executionMessage(record.execution) : undefined,
    batch: (resumeToken, executions) => ({ resumeToken, executions }),
  };
}

export function tradesView(filter: RecordFilter): LogView {
  return {
    item: (record) =>
      record.kind === 'trade' && carries(filter, record) ? tradeReport(record.trade, filter.firm) : undefined,
    batch: (resumeToken, tradeCaptureReports) => ({ resumeToken, tradeCaptureReports }),
  };
}

export function instrumentsView(filter: RecordFilter): LogView {
  return {
    item: (record) =>
      record.kind === 'instrument' && carries(filter, record) ? instrumentMessage(record.instrument) : undefined,
    batch: (resumeToken, instruments) => ({ resumeToken, instruments }),
  };
}

export function positionsView(filter: RecordFilter): LogView {
  return {
    item: (record) =>
      record.kind === 'position' && carries(filter, record)
        ? { position: positionMessage(record.position), changeTime: timestamp(record.time) }
        : undefined,
    batch: (resumeToken, positionChanges) => ({ resumeToken, positionChanges }),
  };
}

/**
 * A trade as the firm sees it: its own executions only (the contra side of another firm stays
 * unset). Every sandbox trade clears at once, so it is reported CLEARED; an auction trade has no
 * aggressor, so its buy side fills the `aggressor` slot and the type says AUCTION.
 */
function tradeReport({ trade, executions }: TradeRecord, firm: string | undefined): ProtoRecord {
  const aggressor = executions.find((execution) => execution.aggressor) ?? executions[0];
  const passive = executions.find((execution) => execution !== aggressor);
  const own = (execution: Execution | undefined) =>
    execution && (firm === undefined || execution.order.account.startsWith(`${firm}/`))
      ? executionMessage(execution)
      : null;
  return {
    id: trade.tradeId,
    symbol: trade.symbol,
    px: int64(trade.px),
    qty: int64(trade.qty),
    aggressor: own(aggressor),
    passive: own(passive),
    tradeType: trade.aggressorSide ? 'TRADE_TYPE_REGULAR' : 'TRADE_TYPE_AUCTION',
    state: trade.cleared ? 'TRADE_STATE_CLEARED' : 'TRADE_STATE_NEW',
    transactTime: timestamp(trade.transactTime),
  };
}
