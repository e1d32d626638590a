import type { IncomingMessage } from 'node:http';

import { fullJitterDelay, steadyNow } from '@lib/core';
import { FirstSnapshot } from '@lib/fanout';
import WebSocket from 'ws';

import type { RetailSubscriptionType } from '../schemas/retail-enums.schema.js';
import { type RetailStreamEvent, parseRetailFrame } from './retail-stream-message.js';

export interface RetailSocketOptions {
  /** ws(s)://host/v1/ws/markets or /v1/ws/private. */
  url: string;
  /** Freshly signed upgrade headers for each connection attempt (timestamps go stale). */
  headers: () => Record<string, string>;
  /** No frame at all (data or heartbeat) for this long: the connection is dead even if TCP says otherwise. */
  heartbeatTimeoutMs: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
  /** How long a subscription may wait for its first answer before `ready` settles anyway. */
  ackTimeoutMs: number;
  /** The upgrade answer, accepted or refused, with the local time the request left (server-clock learning). */
  onHandshake?: (response: IncomingMessage, sentAt: number, accepted: boolean) => void;
  warn?: (message: string) => void;
}

export interface SubscriptionRequest {
  subscriptionType: RetailSubscriptionType;
  marketSlugs?: string[];
}

/** Where one subscription's traffic goes. */
export interface SubscriptionListener {
  event(event: RetailStreamEvent): void;
  /** The connection dropped: what was received may be stale; the resubscription's snapshot follows. */
  gap(): void;
  /** An `{"requestId", "error"}` frame for this subscription after it was accepted. */
  error(message: string): void;
}

interface Subscription {
  requestId: string;
  request: SubscriptionRequest;
  listener: SubscriptionListener;
  sent: boolean;
  /** The first answer (data, or the subscribe sent for a type that has no snapshot); pending until then. */
  readonly first: FirstSnapshot;
}

/** Trades have no snapshot, so nothing answers their subscribe; everything else answers with its state. */
const NO_SNAPSHOT: ReadonlySet<RetailSubscriptionType> = new Set(['SUBSCRIPTION_TYPE_TRADE']);

/**
 * One retail WebSocket channel for one key: signed upgrade, subscribe/unsubscribe frames, heartbeats
 * answered and watched, reconnection with exponential backoff and jitter, and every subscription
 * sent again on each new connection. Connects on the first subscription, closes after the last.
 */
export class RetailSocket {
  readonly stats = { connects: 0, drops: 0 };
  private readonly subscriptions = new Map<string, Subscription>();
  private ws: WebSocket | undefined;
  private attempt = 0;
  private nextId = 0;
  private lastSeen = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: RetailSocketOptions) {}

  get connected(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  /** `ready` settles on the first answer: resolves on data, rejects on an error frame or when never sent in time. */
  subscribe(request: SubscriptionRequest, listener: SubscriptionListener): { requestId: string; ready: Promise<void> } {
    const requestId = `gw-${++this.nextId}`;
    // Past the wait, a subscription that was sent settles anyway; one never sent had no connection.
    const first = new FirstSnapshot(this.options.ackTimeoutMs, () =>
      subscription.sent ? undefined : new Error(`no connection to ${this.options.url}`),
    );
    const subscription: Subscription = { requestId, request, listener, sent: false, first };
    this.subscriptions.set(requestId, subscription);
    if (this.connected) this.send(subscription);
    else this.ensureConnecting();
    return { requestId, ready: first.ready };
  }

  unsubscribe(requestId: string): void {
    const subscription = this.subscriptions.get(requestId);
    if (!subscription) return;
    this.subscriptions.delete(requestId);
    subscription.first.reject(new Error('unsubscribed'));
    if (this.connected && subscription.sent) this.ws?.send(JSON.stringify({ unsubscribe: { requestId } }));
    if (this.subscriptions.size === 0) this.disconnect();
  }

  close(): void {
    this.closed = true;
    for (const requestId of [...this.subscriptions.keys()]) this.unsubscribe(requestId);
    this.disconnect();
  }

  private ensureConnecting(): void {
    if (this.ws || this.reconnectTimer || this.closed) return;
    this.connect();
  }

  private connect(): void {
    const sentAt = steadyNow(); // the retail signer's clock (see RetailSigner)
    const ws = new WebSocket(this.options.url, {
      headers: this.options.headers(),
      handshakeTimeout: this.options.ackTimeoutMs,
    });
    this.ws = ws;
    ws.on('upgrade', (response) => this.options.onHandshake?.(response, sentAt, true));
    ws.on('unexpected-response', (_request, response) => {
      this.options.onHandshake?.(response, sentAt, false);
      this.warn(`upgrade to ${this.options.url} refused with ${response.statusCode}`);
      response.resume();
      ws.terminate();
    });
    ws.on('open', () => this.opened(ws));
    ws.on('message', (data: WebSocket.RawData) => this.received(ws, data.toString()));
    ws.on('error', (error) => this.warn(`retail WebSocket ${this.options.url}: ${error.message}`));
    ws.on('close', () => this.dropped(ws));
  }

  private opened(ws: WebSocket): void {
    if (this.ws !== ws) return;
    this.stats.connects += 1;
    this.lastSeen = performance.now();
    this.startWatchdog(ws);
    for (const subscription of this.subscriptions.values()) this.send(subscription);
  }

  private send(subscription: Subscription): void {
    const { subscriptionType, marketSlugs } = subscription.request;
    const subscribe = {
      requestId: subscription.requestId,
      subscriptionType,
      ...(marketSlugs === undefined ? {} : { marketSlugs }),
    };
    this.ws?.send(JSON.stringify({ subscribe }));
    subscription.sent = true;
    if (NO_SNAPSHOT.has(subscriptionType)) subscription.first.resolve();
  }

  private received(ws: WebSocket, text: string): void {
    if (this.ws !== ws) return;
    this.lastSeen = performance.now();
    const frame = parseRetailFrame(text);
    // The connection works: the next drop starts the backoff again.
    if (frame.kind === 'heartbeat' || frame.kind === 'data') this.attempt = 0;
    switch (frame.kind) {
      case 'heartbeat':
        // Answered in kind: the channel's keep-alive goes both ways.
        ws.send('{"heartbeat":{}}');
        return;
      case 'error':
        return this.upstreamError(frame.message, frame.requestId);
      case 'data': {
        const subscription = this.subscriptions.get(frame.event.requestId);
        if (!subscription) return;
        subscription.first.resolve();
        subscription.listener.event(frame.event);
        return;
      }
      case 'unknown':
        return this.warn(`unrecognised frame on ${this.options.url}: ${text.slice(0, 200)}`);
    }
  }

  /** An error for a subscription not yet accepted refuses it; later ones, or unattributed ones, are reported. */
  private upstreamError(message: string, requestId: string | undefined): void {
    const subscription = requestId === undefined ? undefined : this.subscriptions.get(requestId);
    if (!subscription) return this.warn(`retail channel ${this.options.url} error: ${message}`);
    if (subscription.first.pending) {
      this.subscriptions.delete(subscription.requestId);
      subscription.first.reject(new Error(message));
      if (this.subscriptions.size === 0) this.disconnect();
      return;
    }
    subscription.listener.error(message);
  }

  private dropped(ws: WebSocket): void {
    if (this.ws !== ws) return;
    this.ws = undefined;
    this.stopWatchdog();
    const wasUp = this.lastSeen > 0;
    this.lastSeen = 0;
    if (this.closed || this.subscriptions.size === 0) return;
    this.stats.drops += wasUp ? 1 : 0;
    for (const subscription of this.subscriptions.values()) {
      if (wasUp && subscription.sent && !subscription.first.pending) subscription.listener.gap();
      subscription.sent = false;
    }
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    this.attempt += 1;
    const delay = fullJitterDelay(this.attempt, this.options.backoffInitialMs, this.options.backoffMaxMs);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.closed && this.subscriptions.size > 0) this.connect();
    }, delay);
  }

  private startWatchdog(ws: WebSocket): void {
    this.stopWatchdog();
    const every = Math.max(20, Math.floor(this.options.heartbeatTimeoutMs / 4));
    this.watchdog = setInterval(() => {
      if (performance.now() - this.lastSeen <= this.options.heartbeatTimeoutMs) return; // monotonic: a wall-clock step is no silence
      this.warn(`no frame from ${this.options.url} for ${this.options.heartbeatTimeoutMs} ms: reconnecting`);
      ws.terminate();
    }, every);
  }

  private stopWatchdog(): void {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = undefined;
  }

  private disconnect(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.stopWatchdog();
    const ws = this.ws;
    this.ws = undefined;
    this.attempt = 0;
    if (ws && ws.readyState !== WebSocket.CLOSED) ws.close(1000);
  }

  private warn(message: string): void {
    this.options.warn?.(message);
  }
}
