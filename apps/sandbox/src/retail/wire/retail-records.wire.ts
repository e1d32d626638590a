import type { ActivityType, OrderIntent, OrderSide, RetailOrderType, RetailTimeInForce } from './retail-enums.wire.js';

// Retail answers as the sandbox writes them (upstream-facts "Retail shapes"); the sandbox's own types.

export interface Amount {
  value: string;
  currency: string;
}

export interface MarketMetadata {
  slug: string;
  icon?: string;
  title?: string;
  outcome?: string;
  eventSlug?: string;
  teamId?: number;
  team?: { id: number; name: string; [key: string]: unknown };
}

export interface RetailOrder {
  id: string;
  marketSlug: string;
  side: OrderSide;
  type: RetailOrderType;
  price: Amount;
  quantity: number;
  cumQuantity: number;
  leavesQuantity: number;
  tif: RetailTimeInForce;
  goodTillTime?: string;
  intent: OrderIntent;
  marketMetadata?: MarketMetadata;
  state: string;
  avgPx?: Amount;
  cashOrderQty?: Amount;
  insertTime?: string;
  createTime?: string;
  commissionNotionalTotalCollected?: Amount;
  commissionsBasisPoints?: string;
  makerCommissionsBasisPoints?: string;
}

export interface RetailExecution {
  id: string;
  order: RetailOrder;
  lastShares?: string;
  lastPx?: Amount;
  type: string;
  text?: string;
  orderRejectReason?: string;
  unsolicitedCancelReason?: string;
  transactTime?: string;
  tradeId?: string;
  aggressor?: boolean;
  commissionNotionalCollected?: Amount;
}

export interface CreateOrderResponse {
  id: string;
  executions?: RetailExecution[];
}

export interface RetailPosition {
  netPosition: string;
  qtyBought: string;
  qtySold: string;
  cost: Amount;
  realized: Amount;
  bodPosition: string;
  expired: boolean;
  updateTime?: string;
  marketMetadata?: MarketMetadata;
  cashValue?: Amount;
  qtyAvailable?: string;
}

export interface RetailBalance {
  currentBalance: number;
  currency: string;
  buyingPower: number;
  lastUpdated?: string;
  assetNotional?: number;
  assetAvailable?: number;
  pendingCredit?: number;
  openOrders?: number;
  unsettledFunds?: number;
  pendingWithdrawals?: number;
  marginRequirement?: number;
  balanceReservation?: number;
}

/** Spec 2.12. */
export interface Activity {
  type: ActivityType;
  trade?: {
    id: string;
    marketSlug: string;
    state: string;
    createTime?: string;
    updateTime?: string;
    price?: Amount;
    qty: string;
    isAggressor?: boolean;
    costBasis?: Amount;
    realizedPnl?: Amount;
  };
  positionResolution?: { marketSlug: string; [key: string]: unknown };
  accountBalanceChange?: {
    transactionId?: string;
    status?: string;
    amount?: Amount;
    createTime?: string;
    updateTime?: string;
    transactions?: { transactionId: string; status: string; amount: Amount }[];
  };
}
