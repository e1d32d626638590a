import { OrderRecord, PriceLevel } from './order-record.js';

/** Aggregated quantity at one price, as a book snapshot shows it. */
export interface BookLevel {
  px: number;
  qty: number;
}

/**
 * One side of a book. Levels are kept sorted worst to best so the best level is the last element:
 * the matching loop consumes from the end, where removing a level costs nothing.
 */
export class BookSide {
  readonly levels: PriceLevel[] = [];
  private readonly byPrice = new Map<number, PriceLevel>();

  constructor(readonly isBid: boolean) {}

  best(): PriceLevel | undefined {
    return this.levels[this.levels.length - 1];
  }

  /** Whether an order on the other side priced at `limitPx` reaches `px` on this side. */
  reachable(px: number, limitPx: number): boolean {
    return this.isBid ? px >= limitPx : px <= limitPx;
  }

  append(rec: OrderRecord): void {
    const price = rec.order.price;
    let level = this.byPrice.get(price);
    if (!level) {
      level = new PriceLevel(price);
      this.byPrice.set(price, level);
      this.levels.splice(this.search(price), 0, level);
    }
    rec.level = level;
    rec.prev = level.tail;
    rec.next = null;
    if (level.tail) level.tail.next = rec;
    else level.head = rec;
    level.tail = rec;
    level.totalQty += rec.order.leavesQty;
    level.count++;
  }

  remove(rec: OrderRecord): void {
    const level = rec.level;
    if (!level) return;
    if (rec.prev) rec.prev.next = rec.next;
    else level.head = rec.next;
    if (rec.next) rec.next.prev = rec.prev;
    else level.tail = rec.prev;
    level.totalQty -= rec.order.leavesQty;
    level.count--;
    rec.level = rec.prev = rec.next = null;
    if (level.count === 0) {
      this.byPrice.delete(level.price);
      this.levels.splice(this.search(level.price), 1);
    }
  }

  /** Keeps the level total right when a resting order's leavesQty shrinks or grows in place. */
  adjust(rec: OrderRecord, delta: number): void {
    if (rec.level) rec.level.totalQty += delta;
  }

  /** Best `depth` levels, best first. */
  depth(depth: number): BookLevel[] {
    const out: BookLevel[] = [];
    for (let i = this.levels.length - 1; i >= 0 && out.length < depth; i--) {
      out.push({ px: this.levels[i].price, qty: this.levels[i].totalQty });
    }
    return out;
  }

  /** Every resting order, best price first, time priority within a price. */
  orders(): OrderRecord[] {
    const out: OrderRecord[] = [];
    for (let i = this.levels.length - 1; i >= 0; i--) {
      for (let rec = this.levels[i].head; rec; rec = rec.next) out.push(rec);
    }
    return out;
  }

  /** Index of the level at `price`, or where it would go (binary search over worst-to-best order). */
  private search(price: number): number {
    let lo = 0;
    let hi = this.levels.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const other = this.levels[mid].price;
      const worse = this.isBid ? other < price : other > price;
      if (worse) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
