import type { Execution, MatchingEngine, Order, OrderResult, OrderState } from '../engine/index.js';
import { SurfaceError } from '../shared/surface-error.js';
import { engineCall } from './retail-engine-error.js';
import { enginePriceOf } from './retail-intents.js';
import { ENGINE_TIF, engineOrderOf } from './retail-order-terms.js';
import { unitsOf } from './retail-prices.js';
import type { RetailRecords } from './retail-records.js';
import type { RetailVenue } from './retail-venue.js';
import type {
  CancelAllOrders,
  CancelOrder,
  ClosePosition,
  CreateOrder,
  ModifyOrder,
  PreviewOrder,
} from './wire/retail-request.wire.js';
import type { CreateOrderResponse, RetailOrder } from './wire/retail-records.wire.js';

/** spec 2.10 gives no default block; the sandbox waits this long without maxBlockTime, and never longer than the cap. */
const DEFAULT_BLOCK_MS = 10_000;
const MAX_BLOCK_MS = 300_000;
/** GOOD_TILL_DATE orders expire when the engine is next called; a blocking call keeps calling it. */
const EXPIRY_TICK_MS = 100;
const DONE: ReadonlySet<OrderState> = new Set([
  'ORDER_STATE_FILLED',
  'ORDER_STATE_CANCELED',
  'ORDER_STATE_REJECTED',
  'ORDER_STATE_EXPIRED',
]);

/** Retail order entry on the shared engine: create, preview, close, modify, cancel, cancel all. */
export class RetailOrderDesk {
  private sequence = 0;

  constructor(
    private readonly engine: MatchingEngine,
    private readonly venue: RetailVenue,
    private readonly records: RetailRecords,
  ) {}

  /** An unknown market is not an HTTP error: the order comes back rejected with ORD_REJECT_REASON_UNKNOWN_MARKET (spec 7). */
  create(keyId: string, body: CreateOrder): Promise<CreateOrderResponse> {
    // Retail terms are keyed by a clordId chosen before the insert, so the events the insert raises already see them.
    const clordId = `R${++this.sequence}`;
    const { request, terms } = engineOrderOf(this.engine, keyId, clordId, body);
    this.venue.setTerms(keyId, clordId, terms);
    const result = engineCall(() => this.engine.insert(request));
    return this.respond(result, body);
  }

  preview(keyId: string, { request }: PreviewOrder): { order: RetailOrder } {
    const { request: order, terms } = engineOrderOf(this.engine, keyId, '', request);
    const preview = engineCall(() => this.engine.preview(order));
    return { order: this.records.order(preview.order, terms) };
  }

  /** Sells what is held: a long position with SELL_LONG, a NO holding (short YES) with SELL_SHORT, at market. */
  closePosition(keyId: string, body: ClosePosition): Promise<CreateOrderResponse> {
    if (!this.engine.instrument(body.marketSlug)) throw new SurfaceError(404, `unknown market ${body.marketSlug}`);
    const net = this.engine.position(keyId, body.marketSlug)?.netPosition ?? 0;
    if (net === 0) throw new SurfaceError(400, `no open position in ${body.marketSlug}`);
    const { marketSlug, ...rest } = body;
    return this.create(keyId, {
      ...rest,
      marketSlug,
      intent: net > 0 ? 'ORDER_INTENT_SELL_LONG' : 'ORDER_INTENT_SELL_SHORT',
      type: 'ORDER_TYPE_MARKET',
      quantity: Math.abs(net),
    });
  }

  modify(keyId: string, orderId: string, body: ModifyOrder): Record<string, never> {
    const order = this.ownOrder(keyId, orderId, body.marketSlug);
    const terms = this.records.terms(order);
    const { scale, payout } = this.records.frame(order.symbol);
    engineCall(() =>
      this.engine.replace({
        orderId,
        account: keyId,
        ...(body.price ? { price: enginePriceOf(terms.intent, unitsOf(body.price.value, scale), payout) } : {}),
        ...(body.quantity === undefined ? {} : { orderQty: body.quantity }),
        ...(body.tif ? { timeInForce: ENGINE_TIF[body.tif] } : {}),
        ...(body.participateDontInitiate === undefined
          ? {}
          : { participateDontInitiate: body.participateDontInitiate }),
        ...(body.goodTillTime ? { goodTillTime: Date.parse(body.goodTillTime) } : {}),
      }),
    );
    if (body.tif) this.venue.setTerms(keyId, order.clordId, { ...terms, tif: body.tif });
    return {};
  }

  cancel(keyId: string, orderId: string, body: CancelOrder): Record<string, never> {
    this.ownOrder(keyId, orderId, body.marketSlug);
    engineCall(() => this.engine.cancel({ account: keyId, orderId }));
    return {};
  }

  cancelAll(keyId: string, body: CancelAllOrders): { canceledOrderIds: string[] } {
    return { canceledOrderIds: engineCall(() => this.engine.cancelAll(keyId, body.slugs ?? [])) };
  }

  /** Another key's order is reported missing, as the engine does, not forbidden. */
  ownOrder(keyId: string, orderId: string, marketSlug?: string): Order {
    const order = this.engine.order(orderId);
    if (!this.records.owns(keyId, order)) throw new SurfaceError(404, `order ${orderId} not found`);
    if (marketSlug !== undefined && order.symbol !== marketSlug)
      throw new SurfaceError(400, `order ${orderId} is not in market ${marketSlug}`);
    return order;
  }

  /** `{id}`; with `executions` when the caller blocked for them or the order was rejected outright. */
  private async respond(
    result: OrderResult,
    body: Pick<CreateOrder, 'synchronousExecution' | 'maxBlockTime'>,
  ): Promise<CreateOrderResponse> {
    const executions = [...result.executions];
    if (body.synchronousExecution && !DONE.has(result.order.state)) {
      const seconds = body.maxBlockTime === undefined ? DEFAULT_BLOCK_MS : Number(body.maxBlockTime) * 1_000;
      executions.push(...(await this.untilDone(result.orderId, Math.min(seconds, MAX_BLOCK_MS))));
    }
    if (!body.synchronousExecution && result.order.state !== 'ORDER_STATE_REJECTED') return { id: result.orderId };
    return { id: result.orderId, executions: executions.map((execution) => this.records.execution(execution)) };
  }

  /** spec 2.10: blocks until the order is filled, rejected, canceled or expired, or `maxMs` passed. */
  private untilDone(orderId: string, maxMs: number): Promise<Execution[]> {
    return new Promise((resolve) => {
      const seen: Execution[] = [];
      const finish = () => {
        stop();
        clearTimeout(timer);
        clearInterval(ticker);
        resolve(seen);
      };
      const stop = this.engine.on('execution', ({ execution }) => {
        if (execution.order.id !== orderId) return;
        seen.push(execution);
        if (DONE.has(execution.order.state)) finish();
      });
      const timer = setTimeout(finish, maxMs);
      const ticker = setInterval(() => this.engine.tick(), EXPIRY_TICK_MS);
    });
  }
}
