import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type OrderMessage, type OrderRequest, OrderStreamTap } from '@lib/exchange';
import { JOURNAL_DATABASE, type JournalDatabase, type JournalRecord } from '@lib/journal';
import { ORDER_INTENTS } from '@lib/retail';

/**
 * An existing order's market and side as the gateway knows them, on the book's own side: an exchange
 * order's symbol and side; a retail order's slug, with a short intent mirrored (`mirrored`: its prices
 * are 1 − p on the market's long book).
 */
export interface OrderOrigin {
  market: string;
  side: 'buy' | 'sell';
  mirrored?: boolean;
  /** The participant or retail account the order is booked to: a change is judged only by the order's owner. */
  owner?: string;
  /**
   * The largest quantity the gateway has seen the order carry (its insert or create, the order stream):
   * what a change of its price alone is judged at (issue 26: a replace against its new values).
   */
  qty?: number;
  /** An exchange order's limit price (raw, the exchange's price scale) as last seen: what a change of its quantity alone is judged at when it holds no counted share. */
  price?: number;
}

/** Origins remembered per instance (the oldest go first); an order's market and side never change, its quantity may. */
const CAPACITY = 20_000;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const ownerOf = (value: unknown) => (typeof value === 'string' && value !== '' ? { owner: value } : {});

/** A positive quantity, as a body (a number) or an int64 field of the stream (a string or a number) carries it. */
function qtyOf(value: unknown): { qty?: number } {
  const qty = typeof value === 'string' || typeof value === 'number' ? Number(value) : Number.NaN;
  return Number.isFinite(qty) && qty > 0 ? { qty } : {};
}

/** A positive exchange price (raw int64: a string or a number). */
function priceOf(value: unknown): { price?: number } {
  const price = typeof value === 'string' || typeof value === 'number' ? Number(value) : Number.NaN;
  return Number.isFinite(price) && price > 0 ? { price } : {};
}

/** An exchange order as an insert body or an order-stream message names it; `owner`: its participant. */
function exchangeOrigin(order: unknown, owner: unknown): OrderOrigin | undefined {
  if (!isRecord(order) || typeof order.symbol !== 'string' || order.symbol === '') return undefined;
  if (order.side !== 'SIDE_BUY' && order.side !== 'SIDE_SELL') return undefined;
  return {
    market: order.symbol,
    side: order.side === 'SIDE_BUY' ? 'buy' : 'sell',
    ...ownerOf(owner),
    ...qtyOf(order.orderQty),
    ...priceOf(order.price),
  };
}

/** The long-book side of each retail intent (a short buys NO at p: it sells YES at 1 − p). */
const RETAIL_SIDES: Record<string, { side: 'buy' | 'sell'; mirrored: boolean }> = {
  ORDER_INTENT_BUY_LONG: { side: 'buy', mirrored: false },
  ORDER_INTENT_SELL_LONG: { side: 'sell', mirrored: false },
  ORDER_INTENT_BUY_SHORT: { side: 'sell', mirrored: true },
  ORDER_INTENT_SELL_SHORT: { side: 'buy', mirrored: true },
};

type OrderIntent = (typeof ORDER_INTENTS)[number];

/** The intent that makes a retail order of this long-book side (a mirrored one is a short: a short buy sells YES). */
export function retailIntentOf(origin: OrderOrigin): OrderIntent | undefined {
  return ORDER_INTENTS.find(
    (intent) =>
      RETAIL_SIDES[intent]?.side === origin.side && RETAIL_SIDES[intent].mirrored === (origin.mirrored ?? false),
  );
}

/** A retail order as a create body names it. */
export function retailOrigin(order: unknown, owner?: unknown): OrderOrigin | undefined {
  if (!isRecord(order) || typeof order.marketSlug !== 'string' || typeof order.intent !== 'string') return undefined;
  const found = RETAIL_SIDES[order.intent];
  return (
    found && {
      market: order.marketSlug,
      side: found.side,
      ...(found.mirrored ? { mirrored: true } : {}),
      ...ownerOf(owner),
      ...qtyOf(order.quantity),
    }
  );
}

/**
 * What the gateway knows of an order a replace or a modify names (issue 26: judged against the new
 * values, with the order's own market and side, never the body's): first the orders this instance saw
 * on the exchange order stream and drop copy, or looked up before; then the journal (shared by every
 * instance), where the call that made the order recorded its body beside the answer that named the
 * order, and the order stream recorded its executions. Undefined when neither knows it.
 */
@Injectable()
export class OrderOrigins implements OnModuleInit, OnModuleDestroy {
  private readonly known = new Map<string, OrderOrigin>();
  private readonly stops: (() => void)[] = [];

  constructor(
    @Inject(JOURNAL_DATABASE) private readonly store: JournalDatabase,
    private readonly tap: OrderStreamTap,
  ) {}

  onModuleInit(): void {
    const sight = (order: OrderMessage | null) => {
      const origin = order ? exchangeOrigin(order, order.account) : undefined;
      if (order && origin) this.remember(`exchange:${order.id}`, origin);
    };
    this.stops.push(
      this.tap.listen((update) => ('execution' in update ? sight(update.execution.order) : undefined)),
      this.tap.listenSnapshot((orders) => orders.forEach(sight)),
      this.tap.listenDropCopy((executions) => executions.forEach((execution) => sight(execution.order))),
    );
  }

  onModuleDestroy(): void {
    for (const stop of this.stops) stop();
  }

  /**
   * The exchange's answer to an insert or a batch insert (`{orderId}`, `{responses: [{orderId}]}`, in
   * the order of the requests): each order's origin is known from its request at once, on this
   * instance, before the order stream or the journal has it.
   */
  answered(participant: string, orders: readonly OrderRequest[], answer: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer);
    } catch {
      return;
    }
    const ids = isRecord(parsed) && Array.isArray(parsed.responses) ? parsed.responses : [parsed];
    for (const [i, order] of orders.entries()) {
      const id = isRecord(ids[i]) ? ids[i].orderId : undefined;
      const origin = exchangeOrigin(order, participant);
      if (typeof id === 'string' && origin) this.remember(`exchange:${id}`, origin);
    }
  }

  /** An exchange order's symbol and side. */
  exchange(orderId: string): Promise<OrderOrigin | undefined> {
    return this.lookup(`exchange:${orderId}`, async () => {
      const intent = await this.store.journal.intentOf(orderId);
      const asked = exchangeOrigin(intent?.data?.body, intent?.data?.account);
      if (asked) return asked;
      const { records } = await this.store.journal.timeline({ orderId });
      return records
        .map((record) => streamOrder(record))
        .map((order) => exchangeOrigin(order, isRecord(order) ? order.account : undefined))
        .find((origin) => origin !== undefined);
    });
  }

  /** A retail order's slug and long-book side, from the create that made it. */
  retail(orderId: string): Promise<OrderOrigin | undefined> {
    return this.lookup(`retail:${orderId}`, async () => {
      const intent = await this.store.journal.intentOf(orderId);
      return intent?.data?.operation === 'retail.create'
        ? retailOrigin(intent.data.body, intent.data.account)
        : undefined;
    });
  }

  /** A journal that cannot be read now knows nothing: the caller fails closed, as for an order never seen. */
  private async lookup(key: string, read: () => Promise<OrderOrigin | undefined>): Promise<OrderOrigin | undefined> {
    const held = this.known.get(key);
    if (held) return held;
    const found = await read().catch(() => undefined);
    if (found) this.remember(key, found);
    return found;
  }

  /** A later sight of the order keeps the largest quantity seen: a price change is never judged at less than the order may hold. */
  private remember(key: string, origin: OrderOrigin): void {
    const qty = Math.max(this.known.get(key)?.qty ?? 0, origin.qty ?? 0);
    this.known.delete(key);
    this.known.set(key, qty > 0 ? { ...origin, qty } : origin);
    if (this.known.size > CAPACITY) this.known.delete(this.known.keys().next().value!);
  }
}

/** The order of an order-stream execution record (OrderStreamJournal keeps its symbol and side). */
const streamOrder = (record: JournalRecord): unknown =>
  record.kind === 'stream' && isRecord(record.data) ? record.data.order : undefined;
