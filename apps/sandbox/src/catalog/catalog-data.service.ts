import { Injectable } from '@nestjs/common';

import { MatchingEngine } from '../engine/index.js';
import { bestPrices } from '../retail/retail-book-render.js';
import { SurfaceError } from '../shared/surface-error.js';
import { CatalogFixture } from './fixture/catalog-fixture.js';
import type { EventEntry, League, MarketEntry, Series } from './fixture/catalog-model.js';
import type { SportEntry } from './fixture/reference-data.js';
import { sortAndPage } from './query/sort-page.js';
import { type Variant, renderEvent } from './render/event-render.js';
import type { LivePrices } from './render/market-render.js';
import type { SectionQuery } from './wire/catalog-query.wire.js';

const found = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new SurfaceError(404, `${what} not found`);
  return value;
};

/** The catalog's data: the generated fixture plus the live books of the sandbox's one engine. */
@Injectable()
export class CatalogData {
  readonly fixture: CatalogFixture;
  readonly live: LivePrices;

  constructor(readonly engine: MatchingEngine) {
    this.fixture = CatalogFixture.build(engine.instruments());
    this.live = (symbol) => bestPrices(engine, symbol);
  }

  render(entry: EventEntry, variant: Variant): object {
    return renderEvent(entry, variant, this.live);
  }

  eventById(id: string): EventEntry {
    return found(this.fixture.eventById.get(id), `event ${id}`);
  }

  eventBySlug(slug: string): EventEntry {
    return found(this.fixture.eventBySlug.get(slug), `event ${slug}`);
  }

  marketById(id: string): MarketEntry {
    return found(this.fixture.marketById.get(id), `market ${id}`);
  }

  marketBySlug(slug: string): MarketEntry {
    return found(this.fixture.marketBySlug.get(slug), `market ${slug}`);
  }

  seriesById(id: string): Series {
    return found(
      this.fixture.ref.series.find((s) => String(s.id) === id),
      `series ${id}`,
    );
  }

  /** A league by slug or abbreviation (spec §4.4: "e.g. a league abbreviation"), any case. */
  league(slug: string): League {
    const wanted = slug.toLowerCase();
    return found(
      [...this.fixture.ref.leagues.values()].find((l) => l.slug === wanted || l.abbreviation.toLowerCase() === wanted),
      `league ${slug}`,
    );
  }

  sport(slug: string): SportEntry {
    return found(
      this.fixture.ref.sports.find((s) => s.sport.slug === slug),
      `sport ${slug}`,
    );
  }

  /** The league and series listings: games or futures, in start order or by 24-hour volume (trending). */
  section(events: readonly EventEntry[], q: SectionQuery): object {
    const type = q.type ?? 'sport';
    const section = q.section ?? 'general';
    const excluded = new Set((q.excludeEventId ?? []).map(String));
    const chosen = events.filter((e) => e.kind === type && !excluded.has(e.event.id));
    const order =
      section === 'trending'
        ? { orderBy: ['volume24hr'], orderDirection: 'desc' as const }
        : { orderBy: ['startTime'] };
    const page = sortAndPage(chosen, { ...order, limit: q.limit, offset: q.offset }, (e) => e.event);
    return {
      type,
      typeTitle: type === 'futures' ? 'Futures' : 'Games',
      section,
      sectionTitle: section === 'trending' ? 'Trending' : 'Sport',
      events: page.map((e) => this.render(e, 'section')),
    };
  }
}
