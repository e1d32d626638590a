import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@lib/core';
import { type AccountCallerContext, ExchangeTrading, OrderUpdates } from '@lib/exchange';
import { jsonOrUndefined } from '@lib/upstream';
import { z } from 'zod';

import { OrderOrigins } from '../../risk/order-origins.service.js';
import { FreshReads } from './fresh-reads.js';
import type { BoundBody, OrderReference } from './identity-binder.js';

/** Only what the check reads of the open-orders snapshot, loose so that added upstream fields do not matter. */
const OpenOrdersSchema = z.looseObject({
  orders: z.array(z.looseObject({ id: z.string().optional(), account: z.string().optional() })).optional(),
});

/**
 * Cancel and replace name orders by id, which the exchange resolves firm-wide: an id is the calling
 * participant's only if the exchange shows it among that participant's orders, else 404, saying
 * nothing about whose it is. First from the order stream this instance holds for every configured
 * participant (OrderUpdates: no upstream call, so a cancel does not wait on, or fail with, a read); an
 * id the stream does not show working (just inserted, finished, or the stream down) is looked up in
 * the participant's open-orders snapshot, asked of the exchange as that participant (no published
 * limit; spent through the ordinary pipeline). While that read fails, an id whose participant the
 * gateway itself recorded (OrderOrigins: the insert's answer on this instance, the journal every
 * instance writes, the order stream's earlier sight) is decided by that record, so a cancel of an
 * order the gateway sent is not blocked by a failing read; an id no record names fails as the read did.
 *
 * The checks that come at once for one participant share its reads (FreshReads: at most two under way,
 * each read after its callers came). A cancel's read is never refused by the bulkheads, and a cancel has
 * no per-client rate, so a flood of cancels naming ids that are nobody's made one exchange read each: a
 * probe's 300 concurrent ones held 169 of the pool's connections for one team against its 32, and another
 * team's position read waited 6 s (21 s for 600).
 */
@Injectable()
export class OwnedOrders {
  constructor(
    private readonly trading: ExchangeTrading,
    private readonly stream: OrderUpdates,
    private readonly origins: OrderOrigins,
  ) {}

  /** The open-orders reads under way, by team, participant and kind (a cancel's is bulkhead-exempt). */
  private readonly reads = new FreshReads<Set<string>>();

  /** `forCancel`: a cancel's check, whose read the bulkheads never refuse (a cancel is never blocked by a gateway rule). */
  async confirmed<T>(caller: AccountCallerContext, bound: BoundBody<T>, forCancel = false): Promise<T> {
    const unseen: OrderReference[] = [];
    for (const order of bound.orders) {
      const owner = this.stream.workingOwnerOf(order.id);
      if (owner === undefined) unseen.push(order);
      else if (owner !== caller.participant) throw notOwned(caller, order);
    }
    if (unseen.length === 0) return bound.body;
    const working = await this.workingOrderIds(caller, forCancel).catch((error: unknown) =>
      this.recorded(caller, unseen, error),
    );
    const missing = unseen.find((order) => !working.has(order.id));
    if (missing) throw notOwned(caller, missing);
    return bound.body;
  }

  /**
   * The ids among `orders` the gateway's records show as the caller's participant's. One recorded as
   * another's refuses the call (404); otherwise one with no record rethrows the read's `error`.
   */
  private async recorded(caller: AccountCallerContext, orders: OrderReference[], error: unknown): Promise<Set<string>> {
    const owners = await Promise.all(orders.map(async (order) => (await this.origins.exchange(order.id))?.owner));
    const foreign = owners.some((owner) => owner !== undefined && owner !== caller.participant);
    if (!foreign && owners.includes(undefined)) throw error;
    return new Set(orders.filter((_, i) => owners[i] === caller.participant).map((order) => order.id));
  }

  private workingOrderIds(caller: AccountCallerContext, forCancel: boolean): Promise<Set<string>> {
    return this.reads.get(`${caller.team}\u0000${caller.participant}\u0000${forCancel}`, () =>
      this.readWorkingOrderIds(caller, forCancel),
    );
  }

  private async readWorkingOrderIds(caller: AccountCallerContext, forCancel: boolean): Promise<Set<string>> {
    const reply = await this.trading.openOrders(caller, forCancel);
    const parsed = OpenOrdersSchema.safeParse(jsonOrUndefined(reply.text));
    const orders = parsed.success ? (parsed.data.orders ?? []) : [];
    // An order booked to another account than the participant asked as is not this participant's.
    return new Set(
      orders
        .filter((order) => order.account === undefined || order.account === caller.participant)
        .flatMap((order) => (order.id ? [order.id] : [])),
    );
  }
}

function notOwned(caller: AccountCallerContext, order: OrderReference): NotFoundError {
  return new NotFoundError(
    `No working order ${order.id.slice(0, 100)} for participant ${caller.participant} (${order.field}).`,
  );
}
