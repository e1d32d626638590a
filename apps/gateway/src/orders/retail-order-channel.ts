import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock, GATEWAY_CONFIG } from '@lib/core';
import { RetailPrivateChannels, type RetailStreamEvent } from '@lib/retail';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** An order of the account as the retail private order channel showed it (upstream-facts "Retail shapes"). */
export interface ChannelOrder {
  id: string;
  marketSlug?: string;
  intent?: string;
  side?: string;
  type?: string;
  price?: { value?: string };
  quantity?: number | string;
  state?: string;
  insertTime?: string;
  createTime?: string;
}

/** What this instance saw of one order on the channel. */
export interface SeenOrder {
  order: ChannelOrder;
  /** Its executions as the channel carried them (the create answer's `executions` shape), oldest first. */
  executions: unknown[];
  /** When this instance first saw it (wall clock, ms). */
  firstSeenAt: number;
  /** First seen in a live update (it was made while the channel was held), not in a subscription's snapshot. */
  live: boolean;
}

/** What the channel can prove for one account right now. */
export interface ChannelEvidence {
  /** Since when (wall clock, ms) the channel has been held without a gap; undefined when it is not held now. */
  coveredSince: number | undefined;
  orders: readonly SeenOrder[];
}

/** Orders remembered per account (the oldest go first). */
const ORDERS_PER_ACCOUNT = 5_000;
const EXECUTIONS_PER_ORDER = 20;
/** An account's channel stays held this long after its last retail create or close-position (no churn between orders). */
const LINGER_MS = 60_000;
/** Send times remembered per account (the oldest go first). */
const SENDS_PER_ACCOUNT = 10_000;

interface Held {
  holds: number;
  /** This channel's hold of the account's one order subscription (RetailPrivateChannels), while it holds it. */
  release?: () => void;
  coveredSince?: number;
  linger?: NodeJS.Timeout;
  orders: Map<string, SeenOrder>;
  /** Creates and close-positions of the account this instance is sending now, by market. */
  sending: Map<string, number>;
  /** When this instance sent each create or close-position of the account (wall clock, ms), by client and key. */
  sentAt: Map<string, number>;
}

/** Names one call (its client and Idempotency-Key) in sentAt(). */
export const callKey = (clientId: string, key: string): string => `${clientId}\u0000${key}`;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The retail private order channel (SUBSCRIPTION_TYPE_ORDER, every market, the account's one
 * subscription of RetailPrivateChannels, which the risk view may hold too) of the accounts whose
 * retail creates and close-positions may need resolving: every order event of the account is kept,
 * with the time since when the channel has been held without a gap. That evidence survives the order
 * finishing (a filled or cancelled order is no longer in the open orders), so an UNKNOWN create or
 * close-position is resolved whatever its order became (RetailOrderFinder). Held per
 * `journal.orderStream`: `always` for every retail account of the environment from the start;
 * `while-unknown` (default) from each create or close-position of the account until a minute after
 * the last one, and while an UNKNOWN one of it is pending; `never` not at all. Unless `never`, what
 * the subscription shows while another holder holds it is kept too (more evidence, never less).
 */
@Injectable()
export class RetailOrderChannel implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RetailOrderChannel');
  private readonly mode: GatewayConfig['journal']['orderStream'];
  private readonly accounts: readonly string[];
  private readonly held = new Map<string, Held>();
  private readonly listeners = new Set<(account: string) => void>();
  private stopped = false;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly channels: RetailPrivateChannels,
    private readonly clock: Clock,
  ) {
    this.mode = config.journal.enabled ? config.journal.orderStream : 'never';
    this.accounts = (config.environments[config.environment]?.retailAccounts ?? []).map((account) => account.name);
    if (this.mode === 'never') return;
    channels.listen('SUBSCRIPTION_TYPE_ORDER', {
      event: (account, event) => this.received(account, event),
      // Whatever happened while disconnected (or not subscribed) is unseen: coverage starts again with the next snapshot.
      gap: (account) => {
        const held = this.held.get(account);
        if (held) held.coveredSince = undefined;
      },
    });
  }

  onApplicationBootstrap(): void {
    if (this.mode === 'always') for (const account of this.accounts) this.hold(account);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    for (const held of this.held.values()) {
      clearTimeout(held.linger);
      this.unsubscribe(held);
    }
  }

  /** Called with the account on every order event (UnknownOrders settles what it shows). */
  onOrder(listener: (account: string) => void): void {
    this.listeners.add(listener);
  }

  /**
   * Holds the account's order channel until the returned release (then it lingers a minute). With a
   * market: a call of that market is being sent (its order is not yet the journal's: see sending());
   * with the call's client and key: when it was sent (see sentAt()).
   */
  hold(account: string | undefined, market?: string, call?: string): () => void {
    if (!account || this.mode === 'never' || this.stopped) return () => undefined;
    const held = this.stateOf(account);
    held.holds++;
    if (call !== undefined) {
      held.sentAt.set(call, this.clock.wallNow());
      if (held.sentAt.size > SENDS_PER_ACCOUNT) held.sentAt.delete(held.sentAt.keys().next().value!);
    }
    if (market !== undefined) held.sending.set(market, (held.sending.get(market) ?? 0) + 1);
    clearTimeout(held.linger);
    held.linger = undefined;
    held.release ??= this.channels.hold(account, 'SUBSCRIPTION_TYPE_ORDER');
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held.holds--;
      if (market !== undefined) {
        const left = (held.sending.get(market) ?? 1) - 1;
        if (left > 0) held.sending.set(market, left);
        else held.sending.delete(market);
      }
      if (held.holds > 0 || this.stopped) return;
      held.linger = setTimeout(() => {
        held.linger = undefined;
        if (held.holds === 0) this.unsubscribe(held);
      }, LINGER_MS);
      held.linger.unref();
    };
  }

  evidence(account: string): ChannelEvidence {
    const held = this.held.get(account);
    return { coveredSince: held?.coveredSince, orders: held ? [...held.orders.values()] : [] };
  }

  /** When this instance sent that call (its client and key) of the account, on this instance's clock; undefined after a restart. */
  sentAt(account: string, call: string): number | undefined {
    return this.held.get(account)?.sentAt.get(call);
  }

  /** How many creates and close-positions of the account in that market this instance is sending now. */
  sending(account: string, market: string): number {
    return this.held.get(account)?.sending.get(market) ?? 0;
  }

  private stateOf(account: string): Held {
    let held = this.held.get(account);
    if (!held) {
      held = { holds: 0, orders: new Map(), sending: new Map(), sentAt: new Map() };
      this.held.set(account, held);
    }
    return held;
  }

  private unsubscribe(held: Held): void {
    const release = held.release;
    held.release = undefined;
    release?.();
  }

  private received(account: string, event: RetailStreamEvent): void {
    if (this.stopped || event.stream !== 'orders' || !isRecord(event.data)) return;
    const held = this.stateOf(account);
    const now = this.clock.wallNow();
    if (event.kind === 'snapshot') {
      // The subscription's (or resubscription's) state: from here on every order event of the account arrives.
      held.coveredSince ??= now;
      const orders = Array.isArray(event.data.orders) ? event.data.orders : [];
      for (const order of orders) if (isRecord(order)) this.saw(held, order as unknown as ChannelOrder, undefined, now);
    } else {
      const execution = event.data.execution;
      if (!isRecord(execution) || !isRecord(execution.order)) return;
      this.saw(held, execution.order as unknown as ChannelOrder, execution, now);
    }
    for (const listener of this.listeners) listener(account);
  }

  private saw(held: Held, order: ChannelOrder, execution: unknown, now: number): void {
    if (typeof order.id !== 'string' || order.id === '') return;
    const known = held.orders.get(order.id);
    const seen: SeenOrder = known ?? { order, executions: [], firstSeenAt: now, live: execution !== undefined };
    seen.order = order;
    if (execution !== undefined) seen.executions = [...seen.executions, execution].slice(-EXECUTIONS_PER_ORDER);
    held.orders.delete(order.id);
    held.orders.set(order.id, seen);
    if (held.orders.size > ORDERS_PER_ACCOUNT) held.orders.delete(held.orders.keys().next().value!);
  }
}
