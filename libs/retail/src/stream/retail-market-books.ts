import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Clock, GATEWAY_CONFIG } from '@lib/core';
import type { TopicSink } from '@lib/fanout';

import type { RetailStreamEvent } from './retail-stream-message.js';
import type { RetailSocket } from './retail-socket.js';
import { RetailStreams } from './retail-streams.service.js';
import type { RetailConfigView } from '../config/retail.config.js';

/** A retail market's touch and last trade in dollars as the markets channel last showed them, and when (steady ms). */
export interface RetailTouch {
  bid?: number;
  ask?: number;
  last?: number;
  receivedAt: number;
}

/** How the held books are kept. Constants until an operator needs to tune one. */
export const RETAIL_BOOK_TIMING = {
  /** A slug read by nobody (and watched by no `/ws` topic) for this long is unsubscribed. */
  lingerMs: 60_000,
  /** How long the first read of a slug waits for its first message. */
  firstWaitMs: 2_000,
  /**
   * Slugs held for reads at once per instance: past it a read of a slug not held answers nothing (the
   * band then fails closed). Hub topics are not refused here (the hub has its own caps).
   */
  maxSlugs: 500,
};

interface HeldBook {
  socket: RetailSocket;
  requestId: string;
  /** Settles on the first message, or after `firstWaitMs`. */
  first: Promise<void>;
  /** The subscription's own first answer (what a hub topic's open waits for). */
  ready: Promise<void>;
  latest?: RetailTouch;
  /** The last message as it came, for a hub topic opened later. */
  payload?: Pick<RetailStreamEvent, 'stream' | 'key' | 'data'>;
  /** False from a dropped connection until the resubscription's first message. */
  live: boolean;
  linger: NodeJS.Timeout;
  /** Reads came within the linger. */
  read: boolean;
  /** The hub's `retail.marketDataLite.<slug>` topic, when a `/ws` client watches it. */
  hub?: TopicSink;
}

const NOTHING = Promise.resolve();

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An Amount (`{value}`), or a bare decimal; absent, unparsable or zero reads as none. */
function dollarsOf(value: unknown): number | undefined {
  const raw = isRecord(value) ? value.value : value;
  const px = typeof raw === 'string' || typeof raw === 'number' ? Number(raw) : Number.NaN;
  return Number.isFinite(px) && px > 0 ? px : undefined;
}

/** `marketDataLite {marketSlug, bestBid?, bestAsk?, lastTradePx?}` (upstream-facts WebSocket protocol). */
function touchOf(data: unknown, receivedAt: number): RetailTouch {
  const lite = isRecord(data) ? data : {};
  const bid = dollarsOf(lite.bestBid);
  const ask = dollarsOf(lite.bestAsk);
  const last = dollarsOf(lite.lastTradePx);
  return {
    ...(bid === undefined ? {} : { bid }),
    ...(ask === undefined ? {} : { ask }),
    ...(last === undefined ? {} : { last }),
    receivedAt,
  };
}

/**
 * Retail market touches kept from the gateway's own `/v1/ws/markets` stream (SUBSCRIPTION_TYPE_MARKET_DATA_LITE),
 * one subscription per slug on the markets connection of the environment's default retail key, shared
 * by the price band's reads and the hub's `retail.marketDataLite.<slug>` topic (as StreamedBook is on
 * the exchange side). A slug is subscribed on its first read or topic, and given up a linger after its
 * last read once no topic watches it. A dropped connection makes its touches unknown until the
 * resubscription answers.
 */
@Injectable()
export class RetailMarketBooks implements OnApplicationShutdown {
  private readonly logger = new Logger(RetailMarketBooks.name);
  private readonly books = new Map<string, HeldBook>();
  private readonly account: string | undefined;

  constructor(
    @Inject(GATEWAY_CONFIG) config: RetailConfigView,
    private readonly streams: RetailStreams,
    private readonly clock: Clock,
  ) {
    this.account = config.environments[config.environment]?.retailAccounts[0]?.name;
  }

  /** The slug's touch now, or undefined when no live stream has it (none configured, refused, not in time, over the cap). */
  async read(slug: string): Promise<RetailTouch | undefined> {
    const held = this.books.get(slug);
    if (!held && this.books.size >= RETAIL_BOOK_TIMING.maxSlugs) return undefined;
    const book = held ?? this.subscribe(slug);
    if (!book) return undefined;
    book.read = true;
    book.linger.refresh();
    if (!book.latest) await book.first.catch(() => undefined);
    return book.live ? book.latest : undefined;
  }

  /** The hub's topic of this slug rides the same subscription: resolves on its first message (TopicSource contract). */
  async open(slug: string, sink: TopicSink): Promise<void> {
    const book = this.books.get(slug) ?? this.subscribe(slug);
    if (!book) throw new Error('no retail account is configured');
    book.hub = sink;
    if (book.live && book.payload) return sink.snapshot(book.payload);
    await book.ready;
  }

  close(slug: string): void {
    const book = this.books.get(slug);
    if (!book) return;
    book.hub = undefined;
    if (!book.read) this.release(slug);
  }

  onApplicationShutdown(): void {
    for (const slug of [...this.books.keys()]) this.release(slug);
  }

  private subscribe(slug: string): HeldBook | undefined {
    if (!this.account) return undefined;
    const socket = this.streams.socket(this.account, 'markets');
    const linger = setTimeout(() => this.lingered(slug), RETAIL_BOOK_TIMING.lingerMs);
    linger.unref();
    const held: HeldBook = { socket, requestId: '', first: NOTHING, ready: NOTHING, live: false, linger, read: false };
    const { requestId, ready } = socket.subscribe(
      { subscriptionType: 'SUBSCRIPTION_TYPE_MARKET_DATA_LITE', marketSlugs: [slug] },
      {
        event: (event) => this.received(held, event),
        gap: () => {
          held.live = false;
          held.hub?.gap();
        },
        error: (message) => this.logger.warn(`retail market data of ${slug.slice(0, 100)}: upstream error ${message}`),
      },
    );
    held.requestId = requestId;
    held.ready = ready;
    held.first = firstWithin(ready);
    // A refused subscription is forgotten, so that a later read or topic tries again; whoever waits hears why.
    held.first.catch(() => undefined);
    ready.catch(() => {
      if (this.books.get(slug) === held) this.release(slug);
    });
    this.books.set(slug, held);
    return held;
  }

  private received(book: HeldBook, event: RetailStreamEvent): void {
    book.latest = touchOf(event.data, this.clock.now());
    book.payload = { stream: event.stream, key: event.key, data: event.data };
    book.live = true;
    book.hub?.snapshot(book.payload); // each marketDataLite message is the whole touch
  }

  /** No read within the linger: given up unless a topic still watches it. */
  private lingered(slug: string): void {
    const book = this.books.get(slug);
    if (!book) return;
    book.read = false;
    if (!book.hub) this.release(slug);
  }

  private release(slug: string): void {
    const book = this.books.get(slug);
    if (!book) return;
    this.books.delete(slug);
    clearTimeout(book.linger);
    book.live = false;
    book.socket.unsubscribe(book.requestId);
  }
}

/** Settles on the subscription's first answer, or after `firstWaitMs` (a read waits no longer). */
function firstWithin(ready: Promise<void>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, RETAIL_BOOK_TIMING.firstWaitMs);
    timer.unref();
    ready.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error as Error);
      },
    );
  });
}
