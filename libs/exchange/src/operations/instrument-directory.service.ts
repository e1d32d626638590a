import { Injectable, Logger, Optional } from '@nestjs/common';
import { Clock, SystemClock } from '@lib/core';
import { z } from 'zod';

import { INSTRUMENT_PAGE_SIZE } from '../schemas/instrument-list.schema.js';
import type { CallerContext } from './caller-context.js';
import { ExchangeReferenceData } from './exchange-reference-data.service.js';

/** A list at most this old answers a miss by itself; an older one is refreshed first (at most once per this long). */
const MAX_AGE_MS = 60_000;
/** The exchange lists up to 1,000 per page (spec 4.1); past this many pages the list is not trusted to be whole. */
const MAX_PAGES = 20;
/** The gateway's own reads spend the shared budget like any team's, under this name (it has no share of its own). */
const DIRECTORY_CALLER: CallerContext = { team: 'gateway', requestId: 'instrument-directory' };

const PageSchema = z.looseObject({
  instruments: z
    .array(
      z.looseObject({
        symbol: z.string().optional(),
        tickSize: z.number().optional(),
        priceScale: z.string().optional(),
        eventAttributes: z.looseObject({ eventId: z.string().optional() }).optional(),
      }),
    )
    .optional(),
  nextPageToken: z.string().optional(),
  eof: z.boolean().optional(),
});

/**
 * The symbols the exchange lists, kept so that an order-book read for a symbol that does not exist is a
 * local 404 and spends none of the firm's 12-a-minute book budget (issue 14). The list is read through
 * the ordinary pipeline (instrument-list budget), at most once a minute and only when a symbol misses;
 * while no list could be had, every symbol is left to the exchange to judge.
 */
@Injectable()
export class InstrumentDirectory {
  private readonly logger = new Logger(InstrumentDirectory.name);
  private readonly clock: Clock;
  private symbols?: ReadonlySet<string>;
  /** Each listed symbol's event (the instrument's `eventAttributes.eventId`), when it names one. */
  private events: ReadonlyMap<string, string> = new Map();
  /** Each listed symbol's price tick in dollars (`tickSize / 10^priceScale`), when the instrument names both. */
  private ticks: ReadonlyMap<string, number> = new Map();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading?: Promise<void>;

  // Optional like in MarketDataStreams: a Clock provided only in the app's root module is not visible here.
  constructor(
    private readonly refdata: ExchangeReferenceData,
    @Optional() clock?: Clock,
  ) {
    this.clock = clock ?? new SystemClock();
  }

  /** True: listed; false: not listed (answer 404 locally); undefined: no list yet, ask the exchange. */
  async lists(symbol: string): Promise<boolean | undefined> {
    if (this.symbols?.has(symbol)) return true;
    // A read in flight is waited for: two symbols asked at once must not find "no list" for the second.
    if (this.reading) await this.reading;
    else if (this.clock.now() - this.readAt >= MAX_AGE_MS) await this.refresh();
    return this.symbols?.has(symbol);
  }

  /**
   * The event a symbol belongs to (its instrument's `eventAttributes.eventId`): a string; null when the
   * exchange lists no such symbol or its instrument names no event; undefined while no list could be had.
   * A miss refreshes the list as `lists` does (at most once a minute).
   */
  async eventOf(symbol: string): Promise<string | null | undefined> {
    // A read in flight (the first, at start) is waited for: no list yet is not the same as no list to be had.
    if (this.reading) await this.reading;
    const listed = await this.lists(symbol);
    if (listed === undefined) return undefined;
    return this.events.get(symbol) ?? null;
  }

  /**
   * A symbol's price tick in dollars (its instrument's `tickSize / 10^priceScale`), from the list held
   * now, or read as `lists` does (at most once a minute, on a miss): undefined when not known.
   */
  async tickOf(symbol: string): Promise<number | undefined> {
    if (this.reading) await this.reading;
    if (!this.ticks.has(symbol)) await this.lists(symbol);
    return this.ticks.get(symbol);
  }

  /** A symbol's price tick in dollars from the list held now (no read): undefined when not known. */
  heldTickOf(symbol: string): number | undefined {
    return this.ticks.get(symbol);
  }

  /** The event of a symbol from the list held now (no read): null when it is not known. */
  heldEventOf(symbol: string): string | null {
    return this.events.get(symbol) ?? null;
  }

  private refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read(): Promise<void> {
    // Stamped before reading: a failed read (budget spent, exchange down) is retried a minute later, not per request.
    this.readAt = this.clock.now();
    try {
      const found = new Set<string>();
      const events = new Map<string, string>();
      const ticks = new Map<string, number>();
      let pageToken: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const request = {
          pageSize: INSTRUMENT_PAGE_SIZE.max,
          tradableFilter: 'TRADABLE_FILTER_ALL',
          ...(pageToken ? { pageToken } : {}),
        } as const;
        const { instruments, nextPageToken, eof } = PageSchema.parse(
          JSON.parse((await this.refdata.instruments(DIRECTORY_CALLER, request)).text),
        );
        for (const instrument of instruments ?? []) {
          if (!instrument.symbol) continue;
          found.add(instrument.symbol);
          if (instrument.eventAttributes?.eventId) events.set(instrument.symbol, instrument.eventAttributes.eventId);
          const tick = tickOf(instrument.tickSize, instrument.priceScale);
          if (tick !== undefined) ticks.set(instrument.symbol, tick);
        }
        if (eof || !nextPageToken) {
          this.symbols = found;
          this.events = events;
          this.ticks = ticks;
          return;
        }
        pageToken = nextPageToken;
      }
      this.logger.warn(`the instrument list runs past ${MAX_PAGES} pages; symbols are left to the exchange to judge`);
    } catch (error) {
      this.logger.warn(
        `instrument list not refreshed (${error instanceof Error ? error.message : String(error)}); the previous list stays`,
      );
    }
  }
}

/** A tick in dollars, when the instrument names a positive tick and a price scale. */
function tickOf(tickSize: number | undefined, priceScale: string | undefined): number | undefined {
  const scale = Number(priceScale);
  if (tickSize === undefined || !(tickSize > 0) || priceScale === undefined || !Number.isInteger(scale))
    return undefined;
  return Math.round((tickSize / 10 ** scale) * 1e9) / 1e9;
}
