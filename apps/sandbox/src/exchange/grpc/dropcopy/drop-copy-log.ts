import {
  type Execution,
  type InstrumentEvent,
  type MatchingEngine,
  type Position,
  type Trade,
  firmOf,
} from '../../../engine/index.js';

interface RecordBase {
  seq: number;
  symbol: string;
  /** Epoch ms the record happened at; `resume_time` replays from it. */
  time: number;
  /** `firms/<FIRM>` of every account the record concerns (none: public, e.g. instrument state). */
  firms: readonly string[];
}

/** A trade with the executions of both its sides (the aggressor first; in an auction neither aggressed). */
export interface TradeRecord {
  trade: Trade;
  executions: readonly Execution[];
}

export type LogRecord = RecordBase &
  (
    | { kind: 'execution'; execution: Execution }
    | { kind: 'trade'; trade: TradeRecord }
    | { kind: 'position'; position: Position }
    | { kind: 'instrument'; instrument: InstrumentEvent['instrument'] }
  );

export type LogKind = LogRecord['kind'];
type Unsequenced = { [K in LogKind]: Omit<Extract<LogRecord, { kind: K }>, 'seq'> }[LogKind];

/**
 * The exchange's retained execution log, fed by the matching engine from the sandbox's start: what
 * drop-copy streams replay from a resume point and then follow live. One sequence across every kind,
 * so one opaque token works for each stream. Keeps the newest `retention` records.
 */
export class DropCopyLog {
  private records: LogRecord[] = [];
  private lastSeq = 0;
  /** Bumped by `restart()`: tokens of an earlier incarnation are not this log's. */
  incarnation = 0;
  private readonly listeners = new Set<(record: LogRecord) => void>();
  /** Executions of a fill wait here for their trade event, which the engine raises right after them. */
  private readonly fills = new Map<string, Execution[]>();

  constructor(
    engine: MatchingEngine,
    private readonly retention: number,
  ) {
    engine.on('execution', ({ symbol, execution }) => {
      if (execution.tradeId)
        this.fills.set(execution.tradeId, [...(this.fills.get(execution.tradeId) ?? []), execution]);
      this.append({
        kind: 'execution',
        symbol,
        time: execution.transactTime,
        firms: [firmOf(execution.order.account)],
        execution,
      });
    });
    engine.on('trade', ({ symbol, trade }) => {
      const executions = this.fills.get(trade.tradeId) ?? [];
      this.fills.delete(trade.tradeId);
      const firms = [...new Set([firmOf(trade.buyAccount), firmOf(trade.sellAccount)])];
      this.append({ kind: 'trade', symbol, time: trade.transactTime, firms, trade: { trade, executions } });
    });
    engine.on('position', ({ symbol, position }) =>
      this.append({ kind: 'position', symbol, time: position.updateTime, firms: [firmOf(position.account)], position }),
    );
    engine.on('instrument', ({ symbol, instrument }) =>
      this.append({ kind: 'instrument', symbol, time: instrument.updateTime, firms: [], instrument }),
    );
  }

  /** The sequence of the newest record (0 before any). */
  get head(): number {
    return this.lastSeq;
  }

  /** The oldest sequence a token may still resume after. */
  get oldestResumable(): number {
    return this.records.length > 0 ? this.records[0].seq - 1 : this.lastSeq;
  }

  /** Records after `seq`, oldest first. */
  after(seq: number): LogRecord[] {
    // Sequences are contiguous, so the position of `seq + 1` is known without a search.
    const first = this.records[0]?.seq ?? this.lastSeq + 1;
    return this.records.slice(Math.max(0, seq + 1 - first));
  }

  /** Records at or after `ms`, oldest first. */
  since(ms: number): LogRecord[] {
    return this.records.filter((record) => record.time >= ms);
  }

  /**
   * The exchange's drop-copy service restarted empty (an operator fault): every record is forgotten
   * and positions count from 0 again, so no token issued before is one this log knows.
   */
  restart(): void {
    this.records = [];
    this.lastSeq = 0;
    this.fills.clear();
    this.incarnation += 1;
  }

  /** Follows new records; returns the function that stops following. */
  follow(listener: (record: LogRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private append(record: Unsequenced): void {
    const full = { ...record, seq: ++this.lastSeq } as LogRecord;
    this.records.push(full);
    // Trimmed in steps of a tenth, so appending stays O(1) on average.
    if (this.records.length > this.retention * 1.1) this.records.splice(0, this.records.length - this.retention);
    for (const listener of this.listeners) listener(full);
  }
}
