import { Clock } from '@lib/core';
import type { BudgetedReply } from '@lib/ratelimit';

import type { InstrumentListRequest } from '../schemas/instrument-list.schema.js';
import type { ExchangeReferenceData } from './exchange-reference-data.service.js';
import { InstrumentDirectory } from './instrument-directory.service.js';

class ManualClock extends Clock {
  at = 1_000_000;
  now(): number {
    return this.at;
  }
}

/** The exchange's instrument listing as the directory reads it: pages of symbols, or a failure. */
class Listing {
  pages: string[][] = [['aec-nfl-buf-kc-2026-11-22']];
  failing = false;
  reads: InstrumentListRequest[] = [];

  async instruments(_: unknown, request: InstrumentListRequest): Promise<BudgetedReply> {
    this.reads.push(request);
    if (this.failing) throw new Error('429 exchange.instruments');
    const index = request.pageToken ? Number(request.pageToken) : 0;
    const next = index + 1 < this.pages.length ? String(index + 1) : '';
    const body = {
      instruments: this.pages[index].map((symbol) => ({ symbol })),
      nextPageToken: next,
      eof: next === '',
    };
    return { status: 200, headers: {}, text: JSON.stringify(body), sentAt: 0, receivedAt: 0 };
  }
}

describe(InstrumentDirectory.name, () => {
  let clock: ManualClock;
  let listing: Listing;
  let sut: InstrumentDirectory;

  beforeEach(() => {
    clock = new ManualClock();
    listing = new Listing();
    sut = new InstrumentDirectory(listing as unknown as ExchangeReferenceData, clock);
  });

  it('reads every page of the list, 1,000 at a time, tradable or not', async () => {
    listing.pages = [['a'], ['b'], ['c']];
    expect(await sut.lists('c')).toBe(true);
    expect(listing.reads.map((r) => [r.pageSize, r.tradableFilter, r.pageToken])).toEqual([
      [1000, 'TRADABLE_FILTER_ALL', undefined],
      [1000, 'TRADABLE_FILTER_ALL', '1'],
      [1000, 'TRADABLE_FILTER_ALL', '2'],
    ]);
  });

  it('answers misses from a list younger than a minute without reading it again', async () => {
    expect(await sut.lists('junk-1')).toBe(false);
    clock.at += 59_000;
    expect(await sut.lists('junk-2')).toBe(false);
    expect(listing.reads).toHaveLength(1);
  });

  it('reads an older list again on a miss, once for concurrent misses, and finds a symbol listed since', async () => {
    await sut.lists('x');
    listing.pages = [['aec-nfl-buf-kc-2026-11-22', 'new-symbol']];
    clock.at += 60_000;
    expect(await Promise.all([sut.lists('new-symbol'), sut.lists('junk')])).toEqual([true, false]);
    expect(listing.reads).toHaveLength(2);
  });

  it('answers lookups made while the first read is in flight from that read, not as "no list"', async () => {
    listing.pages = [['a', 'b']];
    expect(await Promise.all([sut.lists('a'), sut.lists('b'), sut.lists('junk')])).toEqual([true, true, false]);
    expect(listing.reads).toHaveLength(1);
  });

  it('leaves every symbol to the exchange while no list could be had, and tries again a minute later', async () => {
    listing.failing = true;
    expect(await sut.lists('aec-nfl-buf-kc-2026-11-22')).toBeUndefined();
    expect(await sut.lists('junk')).toBeUndefined();
    expect(listing.reads).toHaveLength(1);
    listing.failing = false;
    clock.at += 60_000;
    expect(await sut.lists('junk')).toBe(false);
  });

  it('keeps the previous list when a refresh fails', async () => {
    await sut.lists('x');
    listing.failing = true;
    clock.at += 60_000;
    expect(await sut.lists('aec-nfl-buf-kc-2026-11-22')).toBe(true);
    expect(await sut.lists('junk')).toBe(false);
  });
});
