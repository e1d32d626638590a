import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Clock, GATEWAY_CONFIG, type GatewayConfig } from '@lib/core';

import type { RetailSocket } from './retail-socket.js';
import { RetailStreams } from './retail-streams.service.js';

/** A retail market's touch and last trade in dollars as the markets channel last showed them, and when (steady ms). */
export interface RetailTouch {
  bid?: number;
  ask?: number;
  last?: number;
  receivedAt: number;
}

/** How the held books are kept. Constants until an operator needs to tune one. */
export const RETAIL_BOOK_TIMING = {
  /** A slug read by nobody for this long is unsubscribed. */
  lingerMs: 60_000,
  /** How long the first read of a slug waits for its first message. */
  firstWaitMs: 2_000,
  /**
   * Slugs held at once per instance: past it a read of a new slug answers nothing (the band then
   * fails closed). Each slug is one subscription on the one markets connection of the default key.
   */
  maxSlugs: 500,
};

interface HeldBook {
  socket: RetailSocket;
  requestId: string;
  ready: Promise<void>;
  latest?: RetailTouch;
  /** False from a dropped connection until the resubscription's first message. */
  live: boolean;
  linger: NodeJS.Timeout;
}

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
 * Retail market touches kept from the gateway's own `/v1/ws/markets` stream, for the price band: a slug
 * is subscribed (SUBSCRIPTION_TYPE_MARKET_DATA_LITE, one subscription per slug however many reads)
 * on its first read, on the markets connection of the environment's default retail key, and given up
 * a linger after its last read. A dropped connection makes its touches unknown until the resubscription
 * answers.
 */
@Injectable()
export class RetailMarketBooks implements OnApplicationShutdown {
  private readonly logger = new Logger(RetailMarketBooks.name);
  private readonly books = new Map<string, HeldBook>();
  private readonly account: string | undefined;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly streams: RetailStreams,
    private readonly clock: Clock,
  ) {
    this.account = config.environments[config.environment]?.retailAccounts[0]?.name;
  }

  /** The slug's touch now, or undefined when no live stream has it (none configured, refused, not in time, over the cap). */
  async read(slug: string): Promise<RetailTouch | undefined> {
    const book = this.hold(slug);
    if (!book) return undefined;
    if (!book.latest) await book.ready.catch(() => undefined);
    return book.live ? book.latest : undefined;
  }

  onApplicationShutdown(): void {
    for (const slug of [...this.books.keys()]) this.release(slug);
  }

  private hold(slug: string): HeldBook | undefined {
    const held = this.books.get(slug);
    if (held) {
      held.linger.refresh();
      return held;
    }
    if (!this.account || this.books.size >= RETAIL_BOOK_TIMING.maxSlugs) return undefined;
    const socket = this.streams.socket(this.account, 'markets');
    const linger = setTimeout(() => this.release(slug), RETAIL_BOOK_TIMING.lingerMs);
    linger.unref();
    const book: Omit<HeldBook, 'requestId' | 'ready'> = { socket, live: false, linger };
    const { requestId, ready } = socket.subscribe(
      { subscriptionType: 'SUBSCRIPTION_TYPE_MARKET_DATA_LITE', marketSlugs: [slug] },
      {
        event: (event) => {
          book.latest = touchOf(event.data, this.clock.now());
          book.live = true;
        },
        gap: () => {
          book.live = false;
        },
        error: (message) => this.logger.warn(`retail market data of ${slug.slice(0, 100)}: upstream error ${message}`),
      },
    );
    const first = new Promise<void>((resolve, reject) => {
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
    // A refused subscription is forgotten, so that a later read tries again.
    ready.catch(() => {
      if (this.books.get(slug)?.requestId === requestId) this.release(slug);
    });
    const complete: HeldBook = Object.assign(book, { requestId, ready: first });
    this.books.set(slug, complete);
    return complete;
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
