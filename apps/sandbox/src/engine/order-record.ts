import type { Execution, Order } from './order.types.js';

/** One price level; its orders form a doubly linked list in time priority so a cancel is O(1). */
export class PriceLevel {
  head: OrderRecord | null = null;
  tail: OrderRecord | null = null;
  /** Sum of the resting orders' leavesQty. */
  totalQty = 0;
  count = 0;

  constructor(readonly price: number) {}
}

/** The engine's private bookkeeping around an order; `order` is the live record callers get copies of. */
export class OrderRecord {
  /** Where the order rests, or null while it is held (stop), aggressing or closed. */
  level: PriceLevel | null = null;
  prev: OrderRecord | null = null;
  next: OrderRecord | null = null;
  /** Sum of fill price x quantity, so avgPx can be rounded from an exact total. */
  notional = 0;
  lastFillPx = 0;
  /** A stop order that has been triggered and now behaves as a market-to-limit or limit order. */
  triggered = false;
  lastExecution: Execution | undefined = undefined;
  /** A closed order never changes again, so it is frozen and shared instead of copied. */
  closed = false;

  constructor(
    readonly order: Order,
    /** Creation order across the engine: ties, page tokens and stop trigger order use it. */
    readonly seq: number,
  ) {}

  /** A copy callers can keep; a closed order is frozen, so it is handed out as is (saves a copy per order). */
  snapshot(): Order {
    return this.closed ? this.order : { ...this.order };
  }

  close(): void {
    this.closed = true;
    Object.freeze(this.order);
  }
}
