import type { Balance, Position, Trade } from '../../engine/index.js';
import { int64, isoTime } from './int64-wire.js';

// Position, balance and trade records are not shown upstream (spec 2.8): the sandbox writes the
// engine's fields with the exchange's conventions (integers in price units as int64 strings, ISO times).

export interface PositionRecord {
  account: string;
  symbol: string;
  netPosition: string;
  qtyBought: string;
  qtySold: string;
  bodPosition: string;
  /** Average-cost accounting can leave fractions of a price unit; rounded to whole units. */
  cost: string;
  realized: string;
  expired: boolean;
  updateTime: string;
}

export function positionRecord(position: Position): PositionRecord {
  return {
    account: position.account,
    symbol: position.symbol,
    netPosition: int64(position.netPosition),
    qtyBought: int64(position.qtyBought),
    qtySold: int64(position.qtySold),
    bodPosition: int64(position.bodPosition),
    cost: int64(position.cost),
    realized: int64(position.realized),
    expired: position.expired,
    updateTime: isoTime(position.updateTime),
  };
}

export interface BalanceRecord {
  account: string;
  currency: string;
  currentBalance: string;
  buyingPower: string;
  openOrders: string;
  updateTime: string;
}

export function balanceRecord(balance: Balance): BalanceRecord {
  return {
    account: balance.account,
    currency: balance.currency,
    currentBalance: int64(balance.currentBalance),
    buyingPower: int64(balance.buyingPower),
    openOrders: int64(balance.openOrders),
    updateTime: isoTime(balance.updateTime),
  };
}

export interface TradeRecord {
  tradeId: string;
  symbol: string;
  px: string;
  qty: string;
  transactTime: string;
  transactTradeDate: { year: number; month: number; day: number };
  aggressorSide?: string;
  buyOrderId: string;
  sellOrderId: string;
  buyAccount: string;
  sellAccount: string;
}

/** A trade as the firm `mine` sees it: the other firm's account and order id are not its business. */
export function tradeRecord(trade: Trade, mine: (account: string) => boolean): TradeRecord {
  const buy = mine(trade.buyAccount);
  const sell = mine(trade.sellAccount);
  return {
    tradeId: trade.tradeId,
    symbol: trade.symbol,
    px: int64(trade.px),
    qty: int64(trade.qty),
    transactTime: isoTime(trade.transactTime),
    transactTradeDate: { ...trade.transactTradeDate },
    ...(trade.aggressorSide ? { aggressorSide: trade.aggressorSide } : {}),
    buyOrderId: buy ? trade.buyOrderId : '',
    sellOrderId: sell ? trade.sellOrderId : '',
    buyAccount: buy ? trade.buyAccount : '',
    sellAccount: sell ? trade.sellAccount : '',
  };
}
