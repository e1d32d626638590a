import type { OrderRecord } from './order-record.js';

/**
 * Open GOOD_TILL_TIME orders and the earliest expiry among them, so the check made before every engine
 * operation ("on access") costs one comparison until something is actually due.
 */
export class GoodTillSchedule {
  private readonly orders = new Set<OrderRecord>();
  private next = Number.POSITIVE_INFINITY;

  add(rec: OrderRecord): void {
    const at = rec.order.goodTillTime ?? Number.POSITIVE_INFINITY;
    this.orders.add(rec);
    if (at < this.next) this.next = at;
  }

  /** `next` may now be early; the next due() finds nothing and recomputes it. */
  delete(rec: OrderRecord): void {
    this.orders.delete(rec);
  }

  /** Orders whose goodTillTime is at or before `now`, oldest first; they leave the schedule. */
  due(now: number): OrderRecord[] {
    if (now < this.next) return [];
    const due: OrderRecord[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const rec of this.orders) {
      const at = rec.order.goodTillTime ?? Number.POSITIVE_INFINITY;
      if (at <= now) due.push(rec);
      else if (at < next) next = at;
    }
    for (const rec of due) this.orders.delete(rec);
    this.next = next;
    return due.sort((a, b) => a.seq - b.seq);
  }
}
