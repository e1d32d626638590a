import type { MatchingEngine, Position } from '../engine/index.js';
import { enginePriceOf } from './retail-intents.js';
import { amountOf, dollarsOf, isoOf } from './retail-prices.js';
import type { RetailRecords } from './retail-records.js';
import type { RetailBalance, RetailPosition } from './wire/retail-records.wire.js';

/**
 * Positions and balances in retail terms. The engine books a NO holding as a short YES position that
 * received p per contract; a retail NO buyer paid (1 − p). So a short position's cost is shown as
 * |net| x payout + engine cost, and cash as engine cash less the payout of every short contract.
 */
export class RetailPortfolioRecords {
  constructor(
    private readonly engine: MatchingEngine,
    private readonly records: RetailRecords,
  ) {}

  position(position: Position): RetailPosition {
    const { scale, payout } = this.records.frame(position.symbol);
    const shortQty = Math.max(0, -position.netPosition);
    return {
      netPosition: String(position.netPosition),
      qtyBought: String(position.qtyBought),
      qtySold: String(position.qtySold),
      cost: amountOf(position.cost + shortQty * payout, scale),
      realized: amountOf(position.realized, scale),
      bodPosition: String(position.bodPosition),
      expired: position.expired,
      ...(position.updateTime ? { updateTime: isoOf(position.updateTime) } : {}),
      marketMetadata: this.records.metadata(position.symbol),
      qtyAvailable: String(Math.abs(position.netPosition)),
    };
  }

  positions(keyId: string): Position[] {
    return this.engine.positions(keyId).sort((a, b) => a.symbol.localeCompare(b.symbol));
  }

  balance(keyId: string): RetailBalance {
    const engineBalance = this.engine.balance(keyId);
    const collateral = this.positions(keyId).reduce(
      (sum, p) => sum + Math.max(0, -p.netPosition) * this.records.frame(p.symbol).payout,
      0,
    );
    const cash = engineBalance.currentBalance - collateral;
    const reserved = this.openOrderReservation(keyId);
    const updated = engineBalance.updateTime || undefined;
    return {
      currentBalance: dollarsOf(cash),
      currency: 'USD',
      buyingPower: dollarsOf(cash - reserved),
      ...(updated ? { lastUpdated: isoOf(updated) } : {}),
      assetNotional: 0,
      assetAvailable: 0,
      pendingCredit: 0,
      openOrders: dollarsOf(reserved),
      unsettledFunds: 0,
      pendingWithdrawals: 0,
      marginRequirement: 0,
      balanceReservation: dollarsOf(reserved),
    };
  }

  /** What open buys would pay: p x leaves for BUY_LONG, (1 − p) x leaves for BUY_SHORT; sells reserve nothing. */
  private openOrderReservation(keyId: string): number {
    let reserved = 0;
    for (const order of this.engine.openOrders(keyId)) {
      const { intent } = this.records.terms(order);
      const { payout } = this.records.frame(order.symbol);
      const instrument = this.records.instrument(order.symbol);
      const multiplier = instrument?.multiplier ?? 1;
      if (intent === 'ORDER_INTENT_BUY_LONG' || intent === 'ORDER_INTENT_BUY_SHORT') {
        reserved += order.leavesQty * enginePriceOf(intent, order.price, payout) * multiplier;
      }
    }
    return reserved;
  }
}
