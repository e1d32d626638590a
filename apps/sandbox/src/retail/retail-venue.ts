import type { MatchingEngine } from '../engine/index.js';
import { CASH_SCALE } from './retail-prices.js';
import { RetailLimiter } from './retail-rate-limits.js';
import type { OrderIntent, RetailOrderType, RetailTimeInForce } from './wire/retail-enums.wire.js';

/** What the engine does not keep of a retail order: the retail terms it was placed with. */
export interface RetailOrderTerms {
  intent: OrderIntent;
  type: RetailOrderType;
  tif: RetailTimeInForce;
  /** The Amount value asked for, for a market order sized in cash. */
  cashOrderQty?: string;
}

export interface RetailDeposit {
  transactionId: string;
  keyId: string;
  /** Cash units (cents). */
  amount: number;
  time: number;
}

/** Something the drop hook can cut: an open retail WebSocket. */
export interface DroppableConnection {
  readonly subscriptionCount: number;
  drop(): void;
}

/** A signed request that reached the retail limits: when (sandbox clock), for which key, and whether it passed. */
export interface RetailArrival {
  at: number;
  keyId: string;
  accepted: boolean;
}

const STARTING_BALANCE_USD = 10_000;

/**
 * The retail surface's state beside the shared engine: retail terms of each order, deposits, the
 * request limits, open WebSockets and the test knobs. Positions, cash and orders live in the engine;
 * a retail key id is an engine account of its own firm.
 */
export class RetailVenue {
  /** By account and clordId: the sandbox picks each retail order's clordId, so the terms exist before the insert. */
  private readonly orders = new Map<string, RetailOrderTerms>();
  readonly deposits: RetailDeposit[] = [];
  readonly limiter: RetailLimiter;
  readonly connections = new Set<DroppableConnection>();
  /**
   * Test knobs: answer every signed request this much later; per route name, how many of the next
   * calls lose their answer after they ran (the connection is destroyed, the order change is made:
   * RetailAnswerFaultInterceptor); heartbeat period of the channels.
   */
  readonly faults: { delayMs: number; dropAnswers: Record<string, number> } = { delayMs: 0, dropAnswers: {} };
  heartbeatMs = 5_000;
  /** Test knob: answers still to refuse with 429 per route name, and the Retry-After they carry. */
  private readonly throttles = new Map<string, { remaining: number; retryAfterSeconds: number }>();
  /** Test knob: routes whose arrivals are recorded (sliding-window checks of what the gateway sends). */
  private readonly arrivals = new Map<string, RetailArrival[]>();

  constructor(
    private readonly engine: MatchingEngine,
    private readonly now: () => number,
  ) {
    this.limiter = new RetailLimiter(now);
  }

  /** A new key starts with 10,000 USD, booked as a deposit so it shows in the activity feed. */
  onboard(keyId: string): void {
    const amount = STARTING_BALANCE_USD * 10 ** CASH_SCALE;
    this.engine.deposit(keyId, amount);
    this.deposits.push({ transactionId: `D${this.deposits.length + 1}`, keyId, amount, time: this.now() });
  }

  termsOf(account: string, clordId: string): RetailOrderTerms | undefined {
    return clordId ? this.orders.get(`${account}\u0000${clordId}`) : undefined;
  }

  setTerms(account: string, clordId: string, terms: RetailOrderTerms): void {
    this.orders.set(`${account}\u0000${clordId}`, terms);
  }

  /** The next `count` requests of `route` (a `retail.route.<name>` name) get 429 + Retry-After, as an upstream under pressure answers. */
  throttleNext(route: string, count: number, retryAfterSeconds: number): void {
    this.throttles.set(route, { remaining: count, retryAfterSeconds });
  }

  /** Spends one refusal set by throttleNext: its Retry-After seconds, or undefined when none is left. */
  takeThrottle(route: string): number | undefined {
    const throttle = this.throttles.get(route);
    if (!throttle || throttle.remaining <= 0) return undefined;
    throttle.remaining--;
    return throttle.retryAfterSeconds;
  }

  /** From now on records every signed request of `route`, refused or not; returns the live list (earlier records are dropped). */
  recordArrivals(route: string): readonly RetailArrival[] {
    const list: RetailArrival[] = [];
    this.arrivals.set(route, list);
    return list;
  }

  arrived(route: string, keyId: string, accepted: boolean): void {
    this.arrivals.get(route)?.push({ at: this.now(), keyId, accepted });
  }

  /** Live subscriptions over every open retail WebSocket (ORDER_SNAPSHOT ones end with their snapshot). */
  activeSubscriptions(): number {
    let count = 0;
    for (const connection of this.connections) count += connection.subscriptionCount;
    return count;
  }

  /** Cuts every open retail WebSocket at once, as an upstream restart would; returns how many. */
  dropConnections(): number {
    const open = [...this.connections];
    for (const connection of open) connection.drop();
    return open.length;
  }
}
