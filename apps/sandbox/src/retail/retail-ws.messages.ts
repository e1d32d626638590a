import { retailBbo, retailBook } from './retail-book-render.js';
import type { Execution, MatchingEngine, Position, Trade } from '../engine/index.js';
import { intentOfEngineSide, retailSideOf } from './retail-intents.js';
import { amountOf, isoOf } from './retail-prices.js';
import type { RetailPortfolioRecords } from './retail-portfolio.records.js';
import type { RetailRecords } from './retail-records.js';
import type { OrderIntent, OrderSide, RetailSubscriptionType } from './wire/retail-enums.wire.js';

/** One payload key and its content: the message minus requestId and subscriptionType. */
export type Payload = Record<string, unknown>;

/**
 * The data messages of both retail channels, with the SDK's key spelling (upstream-facts WebSocket
 * protocol). Market data is the YES book, as on the REST book; account data is in retail terms.
 */
export class RetailWsMessages {
  constructor(
    private readonly engine: MatchingEngine,
    private readonly records: RetailRecords,
    private readonly portfolio: RetailPortfolioRecords,
  ) {}

  /** What a new subscription gets first; trades have no state to send. */
  snapshot(type: RetailSubscriptionType, keyId: string, slugs: readonly string[]): Payload[] {
    switch (type) {
      case 'SUBSCRIPTION_TYPE_MARKET_DATA':
        return slugs.map((slug) => this.marketData(slug));
      case 'SUBSCRIPTION_TYPE_MARKET_DATA_LITE':
        return slugs.map((slug) => this.marketDataLite(slug));
      case 'SUBSCRIPTION_TYPE_TRADE':
        return [];
      case 'SUBSCRIPTION_TYPE_ORDER':
      case 'SUBSCRIPTION_TYPE_ORDER_SNAPSHOT':
        return [
          {
            orderSubscriptionSnapshot: {
              orders: this.engine.openOrders(keyId, slugs).map((order) => this.records.order(order)),
              eof: true,
            },
          },
        ];
      case 'SUBSCRIPTION_TYPE_POSITION': {
        const positions = this.portfolio.positions(keyId).filter((p) => slugs.length === 0 || slugs.includes(p.symbol));
        return [
          {
            positionSubscriptionSnapshot: {
              positions: Object.fromEntries(positions.map((p) => [p.symbol, this.portfolio.position(p)])),
              eof: true,
            },
          },
        ];
      }
      case 'SUBSCRIPTION_TYPE_ACCOUNT_BALANCE':
        return [{ accountBalanceSubscriptionSnapshot: this.balance(keyId) }];
    }
  }

  marketData(slug: string): Payload {
    return { marketData: retailBook(this.engine, slug) };
  }

  marketDataLite(slug: string): Payload {
    const { marketSlug, bestBid, bestAsk, lastTradePx } = retailBbo(this.engine, slug) as Record<string, unknown>;
    return { marketDataLite: { marketSlug, bestBid, bestAsk, lastTradePx } };
  }

  /** `quantity` is an Amount because that is how the SDK types it. */
  trade(trade: Trade): Payload {
    const { scale } = this.records.frame(trade.symbol);
    const takerBuys = trade.aggressorSide !== 'SIDE_SELL';
    const [taker, maker] = takerBuys ? [trade.buyOrderId, trade.sellOrderId] : [trade.sellOrderId, trade.buyOrderId];
    return {
      trade: {
        marketSlug: trade.symbol,
        price: amountOf(trade.px, scale),
        quantity: { value: String(trade.qty), currency: 'USD' },
        tradeTime: isoOf(trade.transactTime),
        maker: this.party(maker, !takerBuys),
        taker: this.party(taker, takerBuys),
      },
    };
  }

  orderUpdate(execution: Execution): Payload {
    return { orderSubscriptionUpdate: { execution: this.records.execution(execution) } };
  }

  positionUpdate(position: Position): Payload {
    return { positionSubscriptionUpdate: { marketSlug: position.symbol, position: this.portfolio.position(position) } };
  }

  balance(keyId: string): { balance: number; buyingPower: number } {
    const { currentBalance, buyingPower } = this.portfolio.balance(keyId);
    return { balance: currentBalance, buyingPower };
  }

  private party(orderId: string, buys: boolean): { side: OrderSide; intent: OrderIntent } {
    const order = this.engine.order(orderId);
    const intent = order ? this.records.terms(order).intent : intentOfEngineSide(buys ? 'SIDE_BUY' : 'SIDE_SELL');
    return { side: retailSideOf(intent), intent };
  }
}
