/**
 * Positions and cash per account. Money is in price units x multiplier (cents with priceScale 2 and
 * multiplier 1), the only currency is USD. Binary contracts are kept simple: a buyer pays price x qty,
 * a seller receives it, shorts need no collateral and balances may go negative (the sandbox runs no
 * risk checks). Cost basis is average cost, so cost and realized can be fractional.
 */
export interface Position {
  account: string;
  symbol: string;
  netPosition: number;
  qtyBought: number;
  qtySold: number;
  /** Signed cost of the open position: positive when long, negative when short. */
  cost: number;
  realized: number;
  /** Net position at the start of the trading day (rolled by endOfDay). */
  bodPosition: number;
  /** Set once the instrument terminated and the position was settled. */
  expired: boolean;
  updateTime: number;
}

export interface Balance {
  account: string;
  currency: 'USD';
  currentBalance: number;
  /** Current balance less what open buy orders would pay. */
  buyingPower: number;
  /** Price x leaves of the open buy orders. */
  openOrders: number;
  updateTime: number;
}

interface Cash {
  amount: number;
  updateTime: number;
}

export class PositionLedger {
  private readonly positions = new Map<string, Map<string, Position>>();
  private readonly cash = new Map<string, Cash>();
  private readonly openInterest = new Map<string, number>();

  constructor(private readonly initialBalance: number) {}

  /** Books one side of a fill: `qty` is positive for a buy, negative for a sell. */
  applyFill(account: string, symbol: string, qty: number, px: number, multiplier: number, now: number): Position {
    const position = this.position(account, symbol) ?? this.open(account, symbol);
    const before = position.netPosition;
    if (qty > 0) position.qtyBought += qty;
    else position.qtySold -= qty;
    this.trade(position, qty, px * multiplier);
    position.updateTime = now;
    this.moveCash(account, -qty * px * multiplier, now);
    this.openInterest.set(
      symbol,
      this.openInterestOf(symbol) + Math.max(position.netPosition, 0) - Math.max(before, 0),
    );
    return position;
  }

  /** Closes every position of the instrument at the settlement price (spec 3.2 TERMINATED). */
  settle(symbol: string, px: number, multiplier: number, now: number): Position[] {
    const settled: Position[] = [];
    for (const byAccount of this.positions.values()) {
      const position = byAccount.get(symbol);
      if (!position || position.expired) continue;
      const qty = position.netPosition;
      this.trade(position, -qty, px * multiplier);
      this.moveCash(position.account, qty * px * multiplier, now);
      position.expired = true;
      position.updateTime = now;
      settled.push(position);
    }
    this.openInterest.set(symbol, 0);
    return settled;
  }

  position(account: string, symbol: string): Position | undefined {
    return this.positions.get(account)?.get(symbol);
  }

  positionsOf(account: string): Position[] {
    return [...(this.positions.get(account)?.values() ?? [])];
  }

  cashOf(account: string): Cash {
    return this.cash.get(account) ?? { amount: this.initialBalance, updateTime: 0 };
  }

  moveCash(account: string, amount: number, now: number): void {
    this.cash.set(account, { amount: this.cashOf(account).amount + amount, updateTime: now });
  }

  openInterestOf(symbol: string): number {
    return this.openInterest.get(symbol) ?? 0;
  }

  rollDay(): void {
    for (const byAccount of this.positions.values()) {
      for (const position of byAccount.values()) position.bodPosition = position.netPosition;
    }
  }

  private open(account: string, symbol: string): Position {
    const position: Position = {
      account,
      symbol,
      netPosition: 0,
      qtyBought: 0,
      qtySold: 0,
      cost: 0,
      realized: 0,
      bodPosition: 0,
      expired: false,
      updateTime: 0,
    };
    let byAccount = this.positions.get(account);
    if (!byAccount) this.positions.set(account, (byAccount = new Map()));
    byAccount.set(symbol, position);
    return position;
  }

  /** Average-cost accounting: adding to a position adds cost, reducing it realizes against the average. */
  private trade(position: Position, qty: number, unitPx: number): void {
    const net = position.netPosition;
    if (net === 0 || Math.sign(net) === Math.sign(qty)) {
      position.cost += qty * unitPx;
      position.netPosition += qty;
      return;
    }
    const closing = Math.min(Math.abs(qty), Math.abs(net));
    const average = position.cost / net;
    position.realized += closing * (unitPx - average) * Math.sign(net);
    position.cost -= average * closing * Math.sign(net);
    position.netPosition += Math.sign(qty) * closing;
    const opening = Math.abs(qty) - closing;
    if (opening > 0) {
      position.cost = Math.sign(qty) * opening * unitPx;
      position.netPosition = Math.sign(qty) * opening;
    }
    if (position.netPosition === 0) position.cost = 0;
  }
}
