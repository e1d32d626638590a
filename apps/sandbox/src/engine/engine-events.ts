import type { BookSnapshot } from './book-snapshot.types.js';
import type { InstrumentState } from './engine.enums.js';
import type { Execution, Trade } from './order.types.js';
import type { Balance, Position } from './position-ledger.js';

/** Every event names its symbol and a per-symbol sequence: increasing, shared by all kinds, with gaps. */
interface SymbolEvent {
  symbol: string;
  seq: number;
}

/** The book after a change, 10 levels deep (the largest depth the exchange serves). */
export interface BookEvent extends SymbolEvent, BookSnapshot {}

export interface ExecutionEvent extends SymbolEvent {
  execution: Execution;
}

export interface TradeEvent extends SymbolEvent {
  trade: Trade;
}

export interface PositionEvent extends SymbolEvent {
  position: Position;
}

/** A balance moved by a fill on `symbol`, or by a deposit (symbol ''). */
export interface BalanceEvent extends SymbolEvent {
  balance: Balance;
}

/** An instrument moved to another trading state (the instrument-state-change stream's source). */
export interface InstrumentEvent extends SymbolEvent {
  instrument: { symbol: string; state: InstrumentState; nonTradable: boolean; updateTime: number };
}

/** A cancel the engine refused (unknown order, or one no longer open): the order stream's cancel_reject. */
export interface CancelRejectEvent extends SymbolEvent {
  reject: { account: string; orderId: string; clordId: string; text: string; transactTime: number };
}

export interface EngineEventMap {
  book: BookEvent;
  execution: ExecutionEvent;
  trade: TradeEvent;
  position: PositionEvent;
  balance: BalanceEvent;
  instrument: InstrumentEvent;
  cancelReject: CancelRejectEvent;
}

export type EngineEventKind = keyof EngineEventMap;
export type EngineListener<K extends EngineEventKind> = (event: EngineEventMap[K]) => void;
type ListenerTable = { [K in EngineEventKind]: EngineListener<K>[] };

/**
 * Synchronous listeners. Events raised during an operation are queued and delivered once the operation
 * has finished, so a listener always sees a consistent engine; book events are coalesced per symbol.
 * Nothing is built for a kind nobody listens to, which keeps the hot path free.
 */
export class EngineEvents {
  private readonly listeners: ListenerTable = {
    book: [],
    execution: [],
    trade: [],
    position: [],
    balance: [],
    instrument: [],
    cancelReject: [],
  };
  private readonly seqs = new Map<string, number>();
  private queue: ((errors: unknown[]) => void)[] = [];
  private dirtyBooks = new Set<string>();

  constructor(private readonly bookEvent: (symbol: string, seq: number) => BookEvent) {}

  on<K extends EngineEventKind>(kind: K, listener: EngineListener<K>): () => void {
    const list = this.listeners[kind];
    list.push(listener);
    return () => {
      const at = list.indexOf(listener);
      if (at >= 0) list.splice(at, 1);
    };
  }

  wants(kind: EngineEventKind): boolean {
    return this.listeners[kind].length > 0;
  }

  /** Queues an event; `build` runs only when someone listens. */
  push<K extends EngineEventKind>(kind: K, symbol: string, build: (seq: number) => EngineEventMap[K]): void {
    if (!this.wants(kind)) return;
    const event = build(this.nextSeq(symbol));
    this.queue.push((errors) => this.deliver(kind, event, errors));
  }

  bookChanged(symbol: string): void {
    if (this.wants('book')) this.dirtyBooks.add(symbol);
  }

  /** Delivers what was queued; a throwing listener does not stop the others, its error is rethrown after. */
  flush(): void {
    const queue = this.queue;
    const books = this.dirtyBooks;
    if (queue.length === 0 && books.size === 0) return;
    this.queue = [];
    this.dirtyBooks = new Set();
    const errors: unknown[] = [];
    for (const send of queue) send(errors);
    for (const symbol of books) this.deliver('book', this.bookEvent(symbol, this.nextSeq(symbol)), errors);
    if (errors.length > 0) throw errors[0];
  }

  private nextSeq(symbol: string): number {
    const seq = (this.seqs.get(symbol) ?? 0) + 1;
    this.seqs.set(symbol, seq);
    return seq;
  }

  private deliver<K extends EngineEventKind>(kind: K, event: EngineEventMap[K], errors: unknown[]): void {
    for (const listener of [...this.listeners[kind]]) {
      try {
        listener(event);
      } catch (error) {
        errors.push(error);
      }
    }
  }
}
