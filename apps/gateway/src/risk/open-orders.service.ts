import { randomUUID } from 'node:crypto';

import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, REDIS, type RedisClient } from '@lib/core';
import { ExchangeTrading } from '@lib/exchange';
import { RetailOrders } from '@lib/retail';

import { limitRefusal } from './risk.error.js';
import {
  OpenOrderAttribution,
  type OpenOrder,
  OpenOrdersSchema,
  type RetailOpenOrder,
  RetailOpenOrdersSchema,
} from './open-order-attribution.service.js';
import { MemoryOpenOrderStore } from './open-orders.memory-store.js';
import { RiskLimitsSource } from './risk-limits-source.service.js';
import {
  type Amended,
  type Amendment,
  type CountKind,
  LOST,
  MICROS,
  type OpenOrderCount,
  type OpenOrderStore,
  type OrderExposure,
  RETAIL_OWNER,
  RedisOpenOrderStore,
  type Refusal,
} from './open-orders.store.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** The retail API's limits count over 10 s windows (spec 8): the longest a rebuild's retail read waits for budget. */
const RETAIL_READ_WAIT_MS = 10_000;

/** The longest a rebuild waits for reservations in flight to be answered (the exchange answers in well under this). */
const IN_FLIGHT_WAIT_MS = 5_000;

/** How often an instance with reservations in flight looks at the counts' generation (see announceInFlight). */
const IN_FLIGHT_WATCH_MS = 25;

/** How long a rebuild gives the other instances to announce their reservations in flight: a few of their looks. */
const ANNOUNCE_GRACE_MS = 4 * IN_FLIGHT_WATCH_MS;

const NO_EXPOSURE: OrderExposure = { side: 'buy', qty: 0, micros: 0 };

/** The problem a full count answers with, in the count's own terms. */
function refusalOf(refusal: Refusal, path: string) {
  const { count, observed } = refusal;
  const market = {
    ...(count.market === undefined ? {} : { market: count.market }),
    ...(count.event === undefined ? {} : { event: count.event }),
  };
  switch (count.kind ?? 'orders') {
    case 'notional':
      return limitRefusal(
        ErrorCode.RISK_OPEN_NOTIONAL,
        'Open notional (USD, worst case) with this order',
        { value: count.max / MICROS, scope: count.scope, ...market },
        Math.round(observed / 10_000) / 100,
        path,
      );
    case 'position':
      return limitRefusal(
        ErrorCode.RISK_POSITION_LIMIT,
        'Net position (contracts) with same-side open orders and this one',
        { value: count.max, scope: count.scope, ...market },
        observed,
        path,
      );
    default:
      return limitRefusal(
        ErrorCode.RISK_MAX_OPEN_ORDERS,
        'Open orders with this one',
        { value: count.max, scope: count.scope },
        observed,
        path,
      );
  }
}

/** A slot held for one order between its reservation and the exchange's answer (with what it took: counted again when Redis lost it meanwhile). */
export interface Reservation {
  token: string;
  keys: string[];
  participant: string;
  kinds: CountKind[];
  exposure: OrderExposure;
}

/** The fail-closed refusal when the counts cannot be judged: nothing is sent. */
export const uncounted = (why: string, cause?: unknown) =>
  new DomainError(
    ErrorCode.SERVICE_UNAVAILABLE,
    `Open orders cannot be counted right now (${why}); the order was not sent.`,
    { cause, headers: { 'Retry-After': '1' } },
  );

/**
 * A full count's reconcile (the exchange's open orders of every participant with counted orders read
 * again) starts at most this often per instance. Found by a probe: a bot looping on an insert refused
 * for a full count made one upstream read per refusal (19 reads for 19 refusals), spent under the
 * `gateway` team. The cost: an order that closed outside the gateway's sight frees its slot up to this
 * much later (a refusal meanwhile is judged on the counts as they are: the safe side).
 */
const RECONCILE_INTERVAL_MS = 1_000;

/** Outcomes that say the order may exist: its slot is kept (bound later by a reconcile, or swept). */
const MAYBE_PROCESSED = new Set<ErrorCode>([
  ErrorCode.UPSTREAM_TIMEOUT,
  ErrorCode.UPSTREAM_ERROR,
  ErrorCode.UPSTREAM_UNAVAILABLE,
  ErrorCode.INTERNAL,
]);

/**
 * Max open orders, counted across every instance: a slot is reserved atomically before the order is
 * sent (no budget is spent on a refusal), bound to the order id the exchange answers, given back when
 * the order is refused, cancelled through the gateway, or found closed: when a count is full, the
 * exchange's open orders of the counted participants are read once and the slots of orders no longer
 * open (filled, expired, cancelled elsewhere) are given back before the count is judged again.
 *
 * The counts carry a generation in Redis: when it is gone (Redis restarted empty, FLUSHALL, an empty
 * replica promoted), or not yet known to this instance, no order is judged until the counts of the
 * generation in force hold every order open at the exchange: an instance rebuilds them (every configured
 * participant's open orders counted again) while its orders wait, and refuses 503 if that fails. A
 * change of the counted limits (PUT /admin/risk/limits) starts a new generation the same way, so a limit
 * added while orders rest counts them on every instance before it judges one more.
 */
@Injectable()
export class OpenOrders implements OnModuleInit {
  private readonly logger = new Logger(OpenOrders.name);
  private readonly store: OpenOrderStore;
  private readonly redisStore?: RedisOpenOrderStore;
  private readonly staleMs: number;
  private reconciling?: Promise<void>;
  /** When the last reconcile began (steady clock). */
  private reconciledAt = -Infinity;
  private rebuilding?: Promise<void>;
  /** This instance's reservations sent and not yet answered, with the generation each was last counted in. */
  private readonly inFlight = new Map<string, { reservation: Reservation; countedIn: string }>();
  private watch?: NodeJS.Timeout;
  private announcing = false;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) private readonly redis: RedisClient | null,
    private readonly trading: ExchangeTrading,
    private readonly attribution: OpenOrderAttribution,
    private readonly clock: Clock,
    private readonly retail: RetailOrders,
    private readonly limits: RiskLimitsSource,
  ) {
    this.redisStore = redis ? new RedisOpenOrderStore(redis, config.redis?.keyPrefix ?? '') : undefined;
    if (this.redisStore) this.store = this.redisStore;
    else {
      // Without Redis a change of the counted limits marks the counts stale here (with Redis, the change starts a new generation).
      const memory = new MemoryOpenOrderStore(clock);
      limits.onChange(() => memory.recount());
      this.store = memory;
    }
    this.staleMs = config.risk.unansweredReservationMs;
  }

  /** Loads the scripts once Redis is ready (a call before, or after Redis forgot them, falls back to EVAL, which caches them). */
  async onModuleInit(): Promise<void> {
    const { redis, redisStore } = this;
    if (!redis || !redisStore) return;
    const load = () => redisStore.load().catch(() => undefined);
    if (redis.status === 'ready') await load();
    else redis.once('ready', () => void load());
  }

  /**
   * Takes the order's share of every count (a slot, its notional, its quantity on its side), all or
   * none, or throws the refusal of the full one (RISK_MAX_OPEN_ORDERS, RISK_OPEN_NOTIONAL,
   * RISK_POSITION_LIMIT); nothing to count: no reservation. A position count is judged against the
   * position it carries; `repeat` reads it again after a reconcile (fills seen since move quantity to it).
   */
  async reserve(
    counts: readonly OpenOrderCount[],
    participant: string,
    path: string,
    exposure: OrderExposure = NO_EXPOSURE,
    repeat?: () => Promise<readonly OpenOrderCount[]>,
  ): Promise<Reservation | undefined> {
    if (counts.length === 0) return undefined;
    const token = randomUUID();
    let refusal = await this.complete(() => this.attempt(counts, token, exposure));
    if (refusal) {
      await this.reconcile(counts.map((count) => count.key));
      counts = repeat ? await repeat() : counts;
      const again = counts;
      refusal = await this.complete(() => this.attempt(again, token, exposure));
    }
    if (refusal) throw refusalOf(refusal, path);
    const reservation: Reservation = {
      token,
      keys: counts.map((count) => count.key),
      participant,
      kinds: counts.map((count) => count.kind ?? 'orders'),
      exposure,
    };
    this.track(reservation);
    return reservation;
  }

  /** What-if: the refusal a reservation would meet now (read, nothing taken); the same fail-closed answer when the counts cannot be read. */
  async judge(counts: readonly OpenOrderCount[], path: string, exposure: OrderExposure = NO_EXPOSURE): Promise<void> {
    if (counts.length === 0) return;
    const refusal = await this.complete(async () => {
      try {
        return await this.store.judge(counts, exposure);
      } catch (error) {
        throw new DomainError(
          ErrorCode.SERVICE_UNAVAILABLE,
          'Open orders cannot be counted right now (the shared store is unreachable).',
          { cause: error, headers: { 'Retry-After': '1' } },
        );
      }
    });
    if (refusal) throw refusalOf(refusal, path);
  }

  /**
   * A bound order's terms change (a retail modify): its share of the exposure counts is held at the
   * larger of old and new (judged where it grows: the refusal of the count it would overfill) until
   * `amended` sets it; nothing to hold when the order holds no share.
   */
  async amend(orderId: string, counts: readonly OpenOrderCount[], path: string, change: Amendment): Promise<Amended> {
    if (counts.length === 0) return {};
    const result = await this.complete(async () => {
      try {
        return await this.store.amend(orderId, counts, change);
      } catch (error) {
        throw uncounted('the shared store is unreachable', error);
      }
    });
    if ('count' in result) throw refusalOf(result, path);
    return result;
  }

  /** The change was answered (its new share), or refused (`error`: its old share back, unless the change may have applied). Never throws. */
  async amended(
    orderId: string,
    counts: readonly OpenOrderCount[],
    share: { qty: number; micros: number },
    error?: unknown,
  ): Promise<void> {
    if (error instanceof DomainError && MAYBE_PROCESSED.has(error.code)) return;
    await this.quietly(async () => {
      await this.store.amend(orderId, counts, { mode: 'set', ...share });
    });
  }

  /** The exchange reported a bound order's leaves quantity (a partial fill): the filled part leaves the open counts. Never throws. */
  async leaves(orderId: string, leaves: number): Promise<void> {
    await this.quietly(() => this.store.leaves(orderId, leaves));
  }

  /** A replace answered with a new order id: the order's share follows it (closed, or amended, by that id from now on). Never throws. */
  async rebind(orderId: string, newOrderId: string): Promise<void> {
    await this.quietly(() => this.store.rebind(orderId, newOrderId));
  }

  /** The exchange answered an order id: the slot stays until the order closes. */
  async bind(reservation: Reservation | undefined, orderId: string): Promise<void> {
    if (!reservation) return;
    this.untrack(reservation.token);
    // Both at once: one round trip. The counts and the in-flight set share a hash slot ({risk}), so Redis
    // runs them in this order on one connection; and either order is safe (a rebuild that reads the
    // exchange once the token left the in-flight set counts the order again, and BIND keeps that count).
    await Promise.all([
      this.quietly(() => this.store.bind(orderId, reservation)),
      this.quietly(() => this.store.settled(reservation.token)),
    ]);
  }

  /** The order was refused (or the batch item was): the slot is free again. An outcome that may have created it keeps the slot. */
  async unsent(reservation: Reservation | undefined, error?: unknown): Promise<void> {
    if (!reservation) return;
    this.untrack(reservation.token);
    const release =
      error instanceof DomainError && MAYBE_PROCESSED.has(error.code)
        ? undefined
        : this.quietly(() => this.store.release(reservation.token, reservation.keys));
    await Promise.all([release, this.quietly(() => this.store.settled(reservation.token))]);
  }

  /** A cancel through the gateway succeeded: the order's slot is free. Never throws (a cancel is never held up). */
  async closed(orderId: string | undefined): Promise<void> {
    if (orderId !== undefined) await this.quietly(() => this.store.releaseOrder(orderId));
  }

  /** The slots each count holds now; undefined for a count that cannot be read. */
  async held(keys: readonly string[]): Promise<(number | undefined)[]> {
    try {
      return (await this.store.held(keys)).map((count) => (Number.isFinite(count) ? count : undefined));
    } catch {
      return keys.map(() => undefined);
    }
  }

  private async attempt(
    counts: readonly OpenOrderCount[],
    token: string,
    exposure: OrderExposure,
  ): Promise<Refusal | typeof LOST | undefined> {
    try {
      return await this.store.reserve(counts, token, exposure);
    } catch (error) {
      // A count that cannot be read cannot be judged: refuse (fail closed), nothing is sent.
      throw uncounted('the shared store is unreachable', error);
    }
  }

  /** Runs `step`; when the counts' generation is not the one held, once more after the counts of the generation in force are complete. */
  private async complete<T>(step: () => Promise<T | typeof LOST>): Promise<T> {
    const first = await step();
    if (first !== LOST) return first;
    await this.rebuild();
    const again = await step();
    if (again === LOST) throw uncounted('Redis lost them again while they were rebuilt');
    return again;
  }

  /** One at a time per instance: the orders that found the counts lost wait for the same rebuild. */
  private rebuild(): Promise<void> {
    this.rebuilding ??= this.rebuildOnce().finally(() => (this.rebuilding = undefined));
    return this.rebuilding;
  }

  private async rebuildOnce(): Promise<void> {
    try {
      if (await this.store.adopt()) return;
      // Redis may have lost the reservations in flight with the counts (their tokens and the in-flight
      // set): this instance's, then the others' (each looks every IN_FLIGHT_WATCH_MS while it has one),
      // are taken again in this generation before settle() waits for their answers.
      await this.announceInFlight();
      await new Promise((resolve) => setTimeout(resolve, ANNOUNCE_GRACE_MS));
      // A generation started by a limits change counts that version's limits: read them first when this instance holds older ones.
      const needed = this.redisStore?.countsFor() ?? 0;
      if (needed > this.limits.version()) await this.limits.refresh();
      if (needed > this.limits.version()) throw new Error(`risk limits version ${needed} not read yet`);
      await this.settle();
      let restored = 0;
      for (const participant of this.attribution.participants()) {
        for (const order of await this.openAt(participant)) {
          const counted = await this.attribution.counted(order, participant);
          if (!counted) continue;
          await this.store.restore(order.id, { token: `restored:${order.id}`, ...counted });
          restored++;
        }
      }
      for (const account of this.attribution.retailAccounts()) {
        for (const order of await this.retailOpen(account, RETAIL_READ_WAIT_MS)) {
          const counted = await this.attribution.retailCounted(order, account);
          if (!counted) continue;
          await this.store.restore(order.id, { token: `restored:${order.id}`, ...counted });
          restored++;
        }
      }
      await this.store.rebuilt();
      this.logger.warn(
        `open-order counts rebuilt from the exchange's open orders (Redis had none for this generation: lost, or never held): ${restored} open orders counted again`,
      );
    } catch (error) {
      this.logger.warn(`open-order counts not rebuilt (${String(error)}): counted orders are refused until they are`);
      throw uncounted('Redis lost them and they could not be rebuilt from the exchange', error);
    }
  }

  /** A reservation is in flight until its answer binds it or gives it back; looked after while any is. */
  private track(reservation: Reservation): void {
    if (!this.redisStore) return;
    // Taken just now, in the generation this instance holds.
    this.inFlight.set(reservation.token, { reservation, countedIn: this.redisStore.heldGeneration() });
    this.watch ??= setInterval(() => void this.announceInFlight(), IN_FLIGHT_WATCH_MS).unref();
  }

  private untrack(token: string): void {
    this.inFlight.delete(token);
    if (this.inFlight.size > 0 || !this.watch) return;
    clearInterval(this.watch);
    this.watch = undefined;
  }

  /**
   * When the counts' generation in force is not the one a reservation in flight was counted in (Redis
   * lost its data, or a limits change started a new generation), the reservation is taken again in it
   * (ANNOUNCE: unjudged, noted in flight): a rebuild then waits for its answer before it reads the
   * exchange's open orders, so an order on its way is never missing from the rebuilt counts. Never throws
   * (a failed look is made again at the next).
   */
  private async announceInFlight(): Promise<void> {
    const store = this.redisStore;
    if (!store || this.inFlight.size === 0 || this.announcing) return;
    this.announcing = true;
    try {
      const generation = await store.generationInForce();
      if (generation === null) return;
      for (const held of this.inFlight.values()) {
        if (held.countedIn === generation) continue;
        if (await store.announce(held.reservation, generation)) held.countedIn = generation;
      }
    } catch {
      // Redis unreachable: the next look tries again.
    } finally {
      this.announcing = false;
    }
  }

  /**
   * Waits (up to IN_FLIGHT_WAIT_MS) for the reservations in flight on any instance to be answered: one
   * taken before a limits change and answered after the exchange's open orders were read would miss the
   * counts the change added. None can start meanwhile (this generation is not complete).
   */
  private async settle(): Promise<void> {
    const deadline = this.clock.now() + IN_FLIGHT_WAIT_MS;
    let left = await this.store.inFlight(this.staleMs);
    while (left > 0 && this.clock.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = await this.store.inFlight(this.staleMs);
    }
    if (left > 0)
      this.logger.warn(
        `${left} reservations still unanswered after ${IN_FLIGHT_WAIT_MS} ms: the counts are rebuilt without them (the next reconcile counts their orders)`,
      );
  }

  /** The exchange's open orders of one participant, or of one retail account (owner `retail:<account>`): one REST read. */
  private async openAt(participant: string): Promise<OpenOrder[]> {
    if (participant.startsWith(RETAIL_OWNER)) {
      return (await this.retailOpen(participant.slice(RETAIL_OWNER.length), 0)).map((order) => ({
        id: order.id,
        ...(order.leavesQuantity === undefined ? {} : { leavesQty: String(order.leavesQuantity) }),
      }));
    }
    const reply = await this.trading.openOrders({
      team: 'gateway',
      requestId: `risk-reconcile-${randomUUID()}`,
      participant,
    });
    return OpenOrdersSchema.parse(JSON.parse(reply.text)).orders;
  }

  /**
   * A retail account's open orders (one REST read, spent under the `gateway` team). A rebuild's read may
   * queue for its budget up to one retail window (`waitMs`): after Redis lost its data the budget comes
   * back spent, and the counts cannot be rebuilt without it; a reconcile's does not wait.
   */
  private async retailOpen(account: string, waitMs: number): Promise<RetailOpenOrder[]> {
    const reply = await this.retail.open(
      { account, team: 'gateway', requestId: `risk-reconcile-${randomUUID()}`, preferWaitMs: waitMs },
      {},
    );
    return RetailOpenOrdersSchema.parse(JSON.parse(reply.text)).orders;
  }

  /**
   * One at a time per instance (concurrent refusals share the read), and one start per
   * RECONCILE_INTERVAL_MS: a refusal within it is judged on the counts as they are.
   */
  private reconcile(keys: readonly string[]): Promise<void> {
    if (this.reconciling) return this.reconciling;
    const now = performance.now();
    if (now - this.reconciledAt < RECONCILE_INTERVAL_MS) return Promise.resolve();
    this.reconciledAt = now;
    this.reconciling = this.readBack(keys).finally(() => (this.reconciling = undefined));
    return this.reconciling;
  }

  private async readBack(keys: readonly string[]): Promise<void> {
    try {
      // Bound orders first, then the exchange's open orders: an order bound before the read began and absent from it is closed.
      const bound = await this.store.bound();
      const participants = new Set([...bound.values()].map((order) => order.participant));
      const open = new Map<string, number | undefined>();
      for (const participant of participants) {
        for (const order of await this.openAt(participant))
          open.set(order.id, order.leavesQty === undefined ? undefined : Number(order.leavesQty));
      }
      for (const orderId of bound.keys()) {
        const leaves = open.get(orderId);
        if (!open.has(orderId)) await this.store.releaseOrder(orderId);
        else if (leaves !== undefined && Number.isFinite(leaves)) await this.store.leaves(orderId, leaves);
      }
      await this.store.sweep(keys, this.staleMs);
    } catch (error) {
      this.logger.warn(`open orders not reconciled (${String(error)}); the counts stay as they are`);
    }
  }

  private async quietly(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.logger.warn(`open-order count not updated (${String(error)}); the next reconcile heals it`);
    }
  }
}
