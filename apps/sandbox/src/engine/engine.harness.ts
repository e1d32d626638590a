// Shared by the engine's specs: a clock tests move by hand, accounts of three firms, request builders.
import type { Side } from './engine.enums.js';
import type { OrderRequest } from './order.types.js';

export const SYMBOL = 'aec-nfl-buf-kc-2026-11-22';
export const OTHER_SYMBOL = 'aec-nfl-dal-phi-2026-11-22';
export const PREOPEN_SYMBOL = 'aec-nfl-kc-lv-2026-11-29';

/** alice and anna share firm alpha; self-match prevention is per participant, so their orders still trade. */
export const ALICE = 'firms/alpha/users/alice';
export const ANNA = 'firms/alpha/users/anna';
export const BOB = 'firms/beta/users/bob';
export const CAROL = 'firms/gamma/users/carol';

export class ManualClock {
  now = Date.UTC(2026, 10, 22, 15, 0, 0);
  readonly read = (): number => this.now;

  advance(ms: number): void {
    this.now += ms;
  }
}

function order(
  side: Side,
  account: string,
  orderQty: number,
  price: number,
  extra: Partial<OrderRequest>,
): OrderRequest {
  return {
    symbol: SYMBOL,
    side,
    account,
    orderQty,
    price,
    type: 'ORDER_TYPE_LIMIT',
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    ...extra,
  };
}

/** A good-till-cancel limit buy on SYMBOL unless `extra` says otherwise. */
export const bid = (account: string, qty: number, price: number, extra: Partial<OrderRequest> = {}): OrderRequest =>
  order('SIDE_BUY', account, qty, price, extra);

export const ask = (account: string, qty: number, price: number, extra: Partial<OrderRequest> = {}): OrderRequest =>
  order('SIDE_SELL', account, qty, price, extra);
