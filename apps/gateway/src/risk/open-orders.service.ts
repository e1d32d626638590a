import { randomUUID } from 'node:crypto';

import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, type GatewayConfig, REDIS, type RedisClient } from '@lib/core';
import { ExchangeTrading } from '@lib/exchange';
import { z } from 'zod';

import { limitRefusal } from './risk.error.js';
import { MemoryOpenOrderStore } from './open-orders.memory-store.js';
import { type OpenOrderCount, type OpenOrderStore, type OrderExposure, RedisOpenOrderStore, type Refusal } from './open-orders.store.js';

const OpenOrdersSchema = z.looseObject({ orders: z.array(z.looseObject({ id: z.string(), leavesQty: z.union([z.string(), z.number()]).optional() })).default([]) });

/** Counts hold notional in micro-dollars (integers: no rounding drift); refusals name dollars. */
export const MICROS = 1_000_000;
const NO_EXPOSURE: OrderExposure = { side: 'buy', qty: 0, micros: 0 };

/** The problem a full count answers with, in the count's own terms. */
function refusalOf(refusal: Refusal, path: string) {
  const { count, observed } = refusal;
  const market = { ...(count.market === undefined ? {} : { market: count.market }), ...(count.event === undefined ? {} : { event: count.event }) };
  switch (count.kind ?? 'orders') {
    case 'notional':
      return limitRefusal(ErrorCode.RISK_OPEN_NOTIONAL, 'Open notional (USD, worst case) with this order', { value: count.max / MICROS, scope: count.scope, ...market }, Math.round(observed / 10_000) / 100, path);
    case 'position':
      return limitRefusal(ErrorCode.RISK_POSITION_LIMIT, 'Net position (contracts) with same-side open orders and this one', { value: count.max, scope: count.scope, ...market }, observed, path);
    default:
      return limitRefusal(ErrorCode.RISK_MAX_OPEN_ORDERS, 'Open orders with this one', { value: count.max, scope: count.scope }, observed, path);
  }
}

/** A slot held for one order between its reservation and the exchange's answer. */
export interface Reservation {
  token: string;
  keys: string[];
  participant: string;
}

/** Outcomes that say the order may exist: its slot is kept (bound later by a reconcile, or swept). */
const MAYBE_PROCESSED = new Set<ErrorCode>([ErrorCode.UPSTREAM_TIMEOUT, ErrorCode.UPSTREAM_ERROR, ErrorCode.UPSTREAM_UNAVAILABLE, ErrorCode.INTERNAL]);

/**
 * Max open orders, counted across every instance: a slot is reserved atomically before the order is
 * sent (no budget is spent on a refusal), bound to the order id the exchange answers, given back when
 * the order is refused, cancelled through the gateway, or found closed: when a count is full, the
 * exchange's open orders of the counted participants are read once and the slots of orders no longer
 * open (filled, expired, cancelled elsewhere) are given back before the count is judged again.
 */
@Injectable()
export class OpenOrders {
  private readonly logger = new Logger(OpenOrders.name);
  private readonly store: OpenOrderStore;
  private readonly staleMs: number;
  private reconciling?: Promise<void>;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) redis: RedisClient | null,
    private readonly trading: ExchangeTrading,
    clock: Clock,
  ) {
    this.store = redis ? new RedisOpenOrderStore(redis, config.redis?.keyPrefix ?? '') : new MemoryOpenOrderStore(clock);
    this.staleMs = config.risk.unansweredReservationMs;
  }

  /**
   * Takes the order's share of every count (a slot, its notional, its quantity on its side), all or
   * none, or throws the refusal of the full one (RISK_MAX_OPEN_ORDERS, RISK_OPEN_NOTIONAL,
   * RISK_POSITION_LIMIT); nothing to count: no reservation. A position count is judged against the
   * position it carries; `repeat` reads it again after a reconcile (fills seen since move quantity to it).
   */
  async reserve(counts: readonly OpenOrderCount[], participant: string, path: string, exposure: OrderExposure = NO_EXPOSURE, repeat?: () => Promise<readonly OpenOrderCount[]>): Promise<Reservation | undefined> {
    if (counts.length === 0) return undefined;
    const token = randomUUID();
    let refusal = await this.attempt(counts, token, exposure);
    if (refusal) {
      await this.reconcile(counts.map((count) => count.key));
      counts = repeat ? await repeat() : counts;
      refusal = await this.attempt(counts, token, exposure);
    }
    if (refusal) throw refusalOf(refusal, path);
    return { token, keys: counts.map((count) => count.key), participant };
  }

  /** What-if: the refusal a reservation would meet now (read, nothing taken); the same fail-closed answer when the counts cannot be read. */
  async judge(counts: readonly OpenOrderCount[], path: string, exposure: OrderExposure = NO_EXPOSURE): Promise<void> {
    if (counts.length === 0) return;
    let refusal: Refusal | undefined;
    try {
      refusal = await this.store.judge(counts, exposure);
    } catch (error) {
      throw new DomainError(ErrorCode.SERVICE_UNAVAILABLE, 'Open orders cannot be counted right now (the shared store is unreachable).', { cause: error, headers: { 'Retry-After': '1' } });
    }
    if (refusal) throw refusalOf(refusal, path);
  }

  /** The exchange reported a bound order's leaves quantity (a partial fill): the filled part leaves the open counts. Never throws. */
  async leaves(orderId: string, leaves: number): Promise<void> {
    await this.quietly(() => this.store.leaves(orderId, leaves));
  }

  /** The exchange answered an order id: the slot stays until the order closes. */
  async bind(reservation: Reservation | undefined, orderId: string): Promise<void> {
    if (reservation) await this.quietly(() => this.store.bind(orderId, reservation));
  }

  /** The order was refused (or the batch item was): the slot is free again. An outcome that may have created it keeps the slot. */
  async unsent(reservation: Reservation | undefined, error?: unknown): Promise<void> {
    if (!reservation) return;
    if (error instanceof DomainError && MAYBE_PROCESSED.has(error.code)) return;
    await this.quietly(() => this.store.release(reservation.token, reservation.keys));
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

  private async attempt(counts: readonly OpenOrderCount[], token: string, exposure: OrderExposure): Promise<Refusal | undefined> {
    try {
      return await this.store.reserve(counts, token, exposure);
    } catch (error) {
      // A count that cannot be read cannot be judged: refuse (fail closed), nothing is sent.
      throw new DomainError(ErrorCode.SERVICE_UNAVAILABLE, 'Open orders cannot be counted right now (the shared store is unreachable); the order was not sent.', { cause: error, headers: { 'Retry-After': '1' } });
    }
  }

  /** One at a time per instance: concurrent refusals share the read. */
  private reconcile(keys: readonly string[]): Promise<void> {
    this.reconciling ??= this.readBack(keys).finally(() => (this.reconciling = undefined));
    return this.reconciling;
  }

  private async readBack(keys: readonly string[]): Promise<void> {
    try {
      // Bound orders first, then the exchange's open orders: an order bound before the read began and absent from it is closed.
      const bound = await this.store.bound();
      const participants = new Set([...bound.values()].map((order) => order.participant));
      const open = new Map<string, number | undefined>();
      for (const participant of participants) {
        const reply = await this.trading.openOrders({ team: 'gateway', requestId: `risk-reconcile-${randomUUID()}`, participant });
        for (const order of OpenOrdersSchema.parse(JSON.parse(reply.text)).orders) open.set(order.id, order.leavesQty === undefined ? undefined : Number(order.leavesQty));
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
