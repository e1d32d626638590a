import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';

import type { PrivateSubscriptionType } from '../schemas/retail-enums.schema.js';
import type { SubscriptionRequest } from './retail-socket.js';
import type { RetailStreamEvent } from './retail-stream-message.js';
import { RetailStreams } from './retail-streams.service.js';

/** What a listener of one private subscription type hears, for every account whose subscription is held. */
export interface PrivateChannelListener {
  /** An event of the account's subscription: the snapshot (pages) after each (re)subscription, then updates. */
  event(account: string, event: RetailStreamEvent): void;
  /**
   * What was received of the account may be stale from here: the connection dropped (the resubscription's
   * snapshot follows), the subscription was refused, or it was given up (no holder needs it).
   */
  gap(account: string): void;
}

/** A subscription the upstream refused is tried again after this long while it is still held. */
const RETRY_MS = 5_000;

/** The subscribe frame of each type: the order channel for every market, the others as they come. */
const requestOf = (type: PrivateSubscriptionType): SubscriptionRequest =>
  type === 'SUBSCRIPTION_TYPE_ORDER' ? { subscriptionType: type, marketSlugs: [] } : { subscriptionType: type };

interface Held {
  holds: number;
  requestId?: string;
  retry?: NodeJS.Timeout;
}

/**
 * The one holder of each retail account's private-channel subscriptions (issue 29: written once): per
 * account and subscription type at most one subscription upstream, held while any hold of it is taken
 * (reference-counted), sent again after a refusal, given up when the last hold is released. Every
 * listener of the type hears the events of each account's subscription while it is held (a drop is
 * resubscribed by the socket, and its snapshot follows the gap), so two consumers of the same channel
 * share one subscription.
 */
@Injectable()
export class RetailPrivateChannels implements OnApplicationShutdown {
  private readonly logger = new Logger(RetailPrivateChannels.name);
  private readonly held = new Map<string, Held>();
  private readonly listeners = new Map<PrivateSubscriptionType, Set<PrivateChannelListener>>();
  private stopped = false;

  constructor(private readonly streams: RetailStreams) {}

  /** Adds a listener of every account's subscription of `type` (for as long as this instance runs). */
  listen(type: PrivateSubscriptionType, listener: PrivateChannelListener): void {
    const listeners = this.listeners.get(type) ?? new Set();
    listeners.add(listener);
    this.listeners.set(type, listeners);
  }

  /** Holds the account's subscription of `type` until the returned release (idempotent). */
  hold(account: string, type: PrivateSubscriptionType): () => void {
    if (this.stopped) return () => undefined;
    const key = keyOf(account, type);
    let held = this.held.get(key);
    if (!held) {
      held = { holds: 0 };
      this.held.set(key, held);
    }
    const state = held;
    state.holds++;
    if (state.requestId === undefined && state.retry === undefined) this.subscribe(account, type, state);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.holds--;
      if (state.holds > 0) return;
      this.held.delete(key);
      clearTimeout(state.retry);
      state.retry = undefined;
      this.unsubscribe(account, type, state);
    };
  }

  /** Whether the account's subscription of `type` is held now (subscribed, or waiting to be sent again). */
  isHeld(account: string, type: PrivateSubscriptionType): boolean {
    return (this.held.get(keyOf(account, type))?.holds ?? 0) > 0;
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    for (const [key, held] of this.held) {
      const [account, type] = key.split('\u0000') as [string, PrivateSubscriptionType];
      clearTimeout(held.retry);
      this.unsubscribe(account, type, held);
    }
    this.held.clear();
  }

  private subscribe(account: string, type: PrivateSubscriptionType, held: Held): void {
    const socket = this.streams.socket(account, 'private');
    const { requestId, ready } = socket.subscribe(requestOf(type), {
      event: (event) => {
        if (held.requestId === requestId) for (const listener of this.of(type)) listener.event(account, event);
      },
      // Whatever happened while disconnected is unseen: the resubscription's snapshot starts again.
      gap: () => {
        if (held.requestId === requestId) this.gap(account, type);
      },
      error: (message) => this.logger.warn(`retail ${type} channel of ${account}: upstream error ${message}`),
    });
    held.requestId = requestId;
    ready.catch((error: Error) => {
      if (held.requestId !== requestId) return;
      this.logger.warn(`retail ${type} channel of ${account} not opened (${error.message}): tried again`);
      held.requestId = undefined;
      this.gap(account, type);
      if (held.holds === 0 || this.stopped) return;
      held.retry = setTimeout(() => {
        held.retry = undefined;
        if (held.holds > 0 && held.requestId === undefined && !this.stopped) this.subscribe(account, type, held);
      }, RETRY_MS);
      held.retry.unref();
    });
  }

  private unsubscribe(account: string, type: PrivateSubscriptionType, held: Held): void {
    const requestId = held.requestId;
    held.requestId = undefined;
    if (requestId === undefined) return;
    this.streams.socket(account, 'private').unsubscribe(requestId);
    this.gap(account, type);
  }

  private gap(account: string, type: PrivateSubscriptionType): void {
    for (const listener of this.of(type)) listener.gap(account);
  }

  private of(type: PrivateSubscriptionType): Iterable<PrivateChannelListener> {
    return this.listeners.get(type) ?? [];
  }
}

const keyOf = (account: string, type: PrivateSubscriptionType): string => `${account}\u0000${type}`;
