import type { MatchingEngine, Trade } from '../engine/index.js';
import { SurfaceError } from '../shared/surface-error.js';
import { retailPriceOf } from './retail-intents.js';
import { CASH_SCALE, amountOf, isoOf } from './retail-prices.js';
import type { RetailRecords } from './retail-records.js';
import type { RetailVenue } from './retail-venue.js';
import type { ActivitiesQuery } from './wire/retail-request.wire.js';
import type { Activity } from './wire/retail-records.wire.js';

/** spec 4.2: 100 activities per page unless asked otherwise. */
const DEFAULT_LIMIT = 100;

interface Entry {
  time: number;
  activity: Activity;
}

/**
 * The activity feed of one key (spec 2.12, 4.2), derived on each query from the engine's trades and the
 * venue's deposits, oldest first. Cost basis and realized P&L per trade come from replaying the key's
 * trades with average cost, as the engine's ledger books them.
 */
export class RetailActivities {
  constructor(
    private readonly engine: MatchingEngine,
    private readonly venue: RetailVenue,
    private readonly records: RetailRecords,
  ) {}

  page(keyId: string, query: ActivitiesQuery): { activities: Activity[]; nextCursor?: string; eof: boolean } {
    const descending = query.sortOrder !== 'SORT_ORDER_ASCENDING';
    const all = this.entries(keyId);
    const keep = (entry: Entry) =>
      (!query.types || query.types.includes(entry.activity.type)) &&
      (!query.marketSlug || entry.activity.trade?.marketSlug === query.marketSlug);
    const positions = all.map((_, index) => index).filter((index) => keep(all[index]));
    if (descending) positions.reverse();
    const after = cursorPosition(query.cursor, descending);
    const start =
      after === undefined ? 0 : positions.findIndex((index) => (descending ? index < after : index > after));
    const limit = query.limit ?? DEFAULT_LIMIT;
    const chosen = start < 0 ? [] : positions.slice(start, start + limit);
    const eof = start < 0 || start + limit >= positions.length;
    const last = chosen[chosen.length - 1];
    return {
      activities: chosen.map((index) => all[index].activity),
      ...(eof || last === undefined ? {} : { nextCursor: cursorOf(last, descending) }),
      eof,
    };
  }

  private entries(keyId: string): Entry[] {
    const deposits: Entry[] = this.venue.deposits
      .filter((deposit) => deposit.keyId === keyId)
      .map((deposit) => ({
        time: deposit.time,
        activity: {
          type: 'ACTIVITY_TYPE_ACCOUNT_DEPOSIT',
          accountBalanceChange: {
            transactionId: deposit.transactionId,
            status: 'ACCOUNT_BALANCE_CHANGE_STATUS_COMPLETED',
            amount: amountOf(deposit.amount, CASH_SCALE),
            createTime: isoOf(deposit.time),
            updateTime: isoOf(deposit.time),
            transactions: [
              {
                transactionId: deposit.transactionId,
                status: 'ACCOUNT_BALANCE_CHANGE_STATUS_COMPLETED',
                amount: amountOf(deposit.amount, CASH_SCALE),
              },
            ],
          },
        },
      }));
    const trades = this.tradeEntries(keyId);
    // Both lists are in time order; a stable sort keeps deposits before trades of the same millisecond.
    return [...deposits, ...trades].sort((a, b) => a.time - b.time);
  }

  private tradeEntries(keyId: string): Entry[] {
    const ledger = new Map<string, { net: number; cost: number }>();
    return this.tradesOf(keyId).map((trade) => {
      const buys = trade.buyAccount === keyId;
      const orderId = buys ? trade.buyOrderId : trade.sellOrderId;
      const order = this.engine.order(orderId);
      const intent = order
        ? this.records.terms(order).intent
        : buys
          ? 'ORDER_INTENT_BUY_LONG'
          : 'ORDER_INTENT_SELL_LONG';
      const { scale, payout } = this.records.frame(trade.symbol);
      const { opening, realized } = replay(ledger, trade.symbol, buys ? trade.qty : -trade.qty, trade.px);
      const price = retailPriceOf(intent, trade.px, payout);
      const time = isoOf(trade.transactTime);
      return {
        time: trade.transactTime,
        activity: {
          type: 'ACTIVITY_TYPE_TRADE',
          trade: {
            id: trade.tradeId,
            marketSlug: trade.symbol,
            state: 'TRADE_STATE_NEW',
            createTime: time,
            updateTime: time,
            price: amountOf(price, scale),
            qty: String(trade.qty),
            isAggressor: trade.aggressorSide !== undefined && (trade.aggressorSide === 'SIDE_BUY') === buys,
            costBasis: amountOf(opening * price, scale),
            realizedPnl: amountOf(realized, scale),
          },
        },
      };
    });
  }

  private tradesOf(keyId: string): Trade[] {
    const trades: Trade[] = [];
    let pageToken = '';
    do {
      const page = this.engine.trades({ accounts: [keyId], pageSize: 1_000, pageToken });
      trades.push(...page.trades);
      pageToken = page.nextPageToken;
    } while (pageToken);
    return trades;
  }
}

/** Average-cost replay of one fill, like the engine's ledger: how much of it opens, and the P&L of the part that closes. */
function replay(
  ledger: Map<string, { net: number; cost: number }>,
  symbol: string,
  qty: number,
  px: number,
): { opening: number; realized: number } {
  const book = ledger.get(symbol) ?? { net: 0, cost: 0 };
  ledger.set(symbol, book);
  if (book.net === 0 || Math.sign(book.net) === Math.sign(qty)) {
    book.net += qty;
    book.cost += qty * px;
    return { opening: Math.abs(qty), realized: 0 };
  }
  const closing = Math.min(Math.abs(qty), Math.abs(book.net));
  const average = book.cost / book.net;
  const realized = closing * (px - average) * Math.sign(book.net);
  book.cost -= average * closing * Math.sign(book.net);
  book.net += Math.sign(qty) * closing;
  const opening = Math.abs(qty) - closing;
  if (opening > 0) {
    book.net = Math.sign(qty) * opening;
    book.cost = book.net * px;
  }
  if (book.net === 0) book.cost = 0;
  return { opening, realized };
}

/** Cursors name the last activity sent and the direction, so appended activities never shift a page. */
function cursorOf(index: number, descending: boolean): string {
  return Buffer.from(`${descending ? 'd' : 'a'}:${index}`).toString('base64url');
}

function cursorPosition(cursor: string | undefined, descending: boolean): number | undefined {
  if (cursor === undefined) return undefined;
  const match = /^([ad]):(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match || (match[1] === 'd') !== descending)
    throw new SurfaceError(400, 'cursor is not one this feed issued for this sort order');
  return Number(match[2]);
}
