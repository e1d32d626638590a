import type { WebSocket } from 'ws';

import type {
  BalanceEvent,
  BookEvent,
  ExecutionEvent,
  MatchingEngine,
  PositionEvent,
  TradeEvent,
} from '../engine/index.js';
import type { RetailWsMessages } from './retail-ws.messages.js';
import type { DroppableConnection } from './retail-venue.js';
import {
  MARKET_SUBSCRIPTION_TYPES,
  PRIVATE_SUBSCRIPTION_TYPES,
  type RetailSubscriptionType,
} from './wire/retail-enums.wire.js';

export type RetailWsChannel = 'markets' | 'private';

const CHANNEL_TYPES: Record<RetailWsChannel, readonly string[]> = {
  markets: MARKET_SUBSCRIPTION_TYPES,
  private: PRIVATE_SUBSCRIPTION_TYPES,
};
/** upstream-facts "Retail extras": at most 100 markets per subscription. */
const MAX_MARKETS = 100;

interface Subscription {
  type: RetailSubscriptionType;
  /** Undefined: every market (an order or position subscription without marketSlugs). */
  slugs?: ReadonlySet<string>;
  lastBalance?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * One client connection to `/v1/ws/markets` or `/v1/ws/private` of one key: subscribe and unsubscribe
 * frames, snapshots on subscribe, engine-driven updates, heartbeats, and `{requestId?, error}` for
 * anything it cannot serve.
 */
export class RetailWsSession implements DroppableConnection {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly ws: WebSocket,
    readonly channel: RetailWsChannel,
    readonly keyId: string,
    private readonly engine: MatchingEngine,
    private readonly messages: RetailWsMessages,
    heartbeatMs: number,
  ) {
    ws.on('message', (data: Buffer) => this.received(data.toString()));
    ws.on('error', () => undefined); // a reset client just closes
    ws.on('close', () => clearInterval(this.heartbeat));
    this.heartbeat = setInterval(() => this.send({ heartbeat: {} }), heartbeatMs);
  }

  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  drop(): void {
    this.ws.terminate();
  }

  book(event: BookEvent): void {
    for (const [requestId, sub] of this.subscriptions) {
      if (!sub.slugs?.has(event.symbol)) continue;
      if (sub.type === 'SUBSCRIPTION_TYPE_MARKET_DATA')
        this.data(requestId, sub, this.messages.marketData(event.symbol));
      if (sub.type === 'SUBSCRIPTION_TYPE_MARKET_DATA_LITE')
        this.data(requestId, sub, this.messages.marketDataLite(event.symbol));
    }
  }

  trade(event: TradeEvent): void {
    for (const [requestId, sub] of this.subscriptions) {
      if (sub.type === 'SUBSCRIPTION_TYPE_TRADE' && sub.slugs?.has(event.symbol))
        this.data(requestId, sub, this.messages.trade(event.trade));
    }
  }

  /** An execution of this key: an order update, and maybe a new buying power. */
  execution(event: ExecutionEvent): void {
    if (event.execution.order.account !== this.keyId) return;
    for (const [requestId, sub] of this.subscriptions) {
      if (sub.type === 'SUBSCRIPTION_TYPE_ORDER' && this.covers(sub, event.symbol))
        this.data(requestId, sub, this.messages.orderUpdate(event.execution));
    }
    this.balanceChanged();
  }

  position(event: PositionEvent): void {
    if (event.position.account !== this.keyId) return;
    for (const [requestId, sub] of this.subscriptions) {
      if (sub.type === 'SUBSCRIPTION_TYPE_POSITION' && this.covers(sub, event.symbol))
        this.data(requestId, sub, this.messages.positionUpdate(event.position));
    }
  }

  balance(event: BalanceEvent): void {
    if (event.balance.account === this.keyId) this.balanceChanged();
  }

  private received(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return this.send({ error: 'message is not JSON' });
    }
    if (isRecord(message) && isRecord(message.subscribe)) return this.subscribe(message.subscribe);
    if (isRecord(message) && isRecord(message.unsubscribe)) return this.unsubscribe(message.unsubscribe);
    if (isRecord(message) && 'heartbeat' in message) return; // a client's keep-alive needs no answer
    this.send({ error: 'expected subscribe, unsubscribe or heartbeat' });
  }

  private subscribe(request: Record<string, unknown>): void {
    const requestId = typeof request.requestId === 'string' && request.requestId !== '' ? request.requestId : undefined;
    const refusal = this.refusal(request, requestId);
    if (refusal) return this.send({ ...(requestId ? { requestId } : {}), error: refusal });
    const type = request.subscriptionType as RetailSubscriptionType;
    const slugs = (request.marketSlugs ?? []) as string[];
    const sub: Subscription = {
      type,
      ...(slugs.length > 0 && type !== 'SUBSCRIPTION_TYPE_ACCOUNT_BALANCE' ? { slugs: new Set(slugs) } : {}),
    };
    // ORDER_SNAPSHOT is the state once, with no updates after it.
    if (type !== 'SUBSCRIPTION_TYPE_ORDER_SNAPSHOT') this.subscriptions.set(requestId!, sub);
    for (const payload of this.messages.snapshot(type, this.keyId, slugs)) this.data(requestId!, sub, payload);
    if (type === 'SUBSCRIPTION_TYPE_ACCOUNT_BALANCE')
      sub.lastBalance = JSON.stringify(this.messages.balance(this.keyId));
  }

  private refusal(request: Record<string, unknown>, requestId: string | undefined): string | undefined {
    if (!requestId) return 'subscribe.requestId is required';
    if (this.subscriptions.has(requestId)) return `requestId ${requestId} is already subscribed`;
    const type = request.subscriptionType;
    if (typeof type !== 'string' || !CHANNEL_TYPES[this.channel].includes(type))
      return `subscriptionType ${String(type)} is not served on /v1/ws/${this.channel}`;
    const slugs = request.marketSlugs ?? [];
    if (!Array.isArray(slugs) || !slugs.every((slug) => typeof slug === 'string'))
      return 'marketSlugs must be an array of market slugs';
    if (slugs.length > MAX_MARKETS) return `at most ${MAX_MARKETS} markets per subscription`;
    if (this.channel === 'markets' && slugs.length === 0) return 'marketSlugs is required';
    const unknown = (slugs as string[]).find((slug) => !this.engine.instrument(slug));
    return unknown === undefined ? undefined : `unknown market ${unknown}`;
  }

  private unsubscribe(request: Record<string, unknown>): void {
    const requestId = typeof request.requestId === 'string' ? request.requestId : '';
    if (!this.subscriptions.delete(requestId)) this.send({ requestId, error: `no subscription ${requestId}` });
  }

  private covers(sub: Subscription, symbol: string): boolean {
    return sub.slugs === undefined || sub.slugs.has(symbol);
  }

  /** Balance messages only when balance or buying power moved, however many executions moved them. */
  private balanceChanged(): void {
    let current: { balance: ReturnType<RetailWsMessages['balance']>; text: string } | undefined;
    for (const [requestId, sub] of this.subscriptions) {
      if (sub.type !== 'SUBSCRIPTION_TYPE_ACCOUNT_BALANCE') continue;
      current ??= this.currentBalance();
      const { balance, text } = current;
      if (text === sub.lastBalance) continue;
      sub.lastBalance = text;
      this.data(requestId, sub, { accountBalanceSubscriptionUpdate: balance });
    }
  }

  /** The key's balance message and its text, worked out once per change however many subscriptions read it. */
  private currentBalance(): { balance: ReturnType<RetailWsMessages['balance']>; text: string } {
    const balance = this.messages.balance(this.keyId);
    return { balance, text: JSON.stringify(balance) };
  }

  private data(requestId: string, sub: Subscription, payload: Record<string, unknown>): void {
    this.send({ requestId, subscriptionType: sub.type, ...payload });
  }

  private send(message: object): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }
}
