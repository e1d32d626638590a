import { Controller, Get, Param, Query } from '@nestjs/common';

import { parseInput } from './catalog-input.js';
import { CatalogRoute } from './catalog-surface.guard.js';
import { CatalogData } from './catalog-data.service.js';
import { eventMatches } from './query/event-filter.js';
import { sortAndPage } from './query/sort-page.js';
import { EventsQuery, IdParams, SearchQuery, SlugParams } from './wire/catalog-query.wire.js';

/** Search pages hold 20 events unless asked otherwise (upstream default not shown). */
const SEARCH_PAGE = 20;

@Controller('v1')
export class CatalogEventsController {
  constructor(private readonly data: CatalogData) {}

  @Get('events')
  @CatalogRoute('events')
  events(@Query() raw: unknown): { events: object[] } {
    const query = parseInput(EventsQuery, raw, 'query');
    const events = this.data.fixture.events.filter((entry) => eventMatches(entry, query));
    return { events: sortAndPage(events, query, (e) => e.event).map((e) => this.data.render(e, 'listing')) };
  }

  @Get('events/slug/:slug')
  @CatalogRoute('eventBySlug')
  eventBySlug(@Param() raw: unknown): { event: object } {
    return { event: this.data.render(this.data.eventBySlug(parseInput(SlugParams, raw, 'path').slug), 'detail') };
  }

  @Get('events/:id')
  @CatalogRoute('event')
  event(@Param() raw: unknown): { event: object } {
    return { event: this.data.render(this.data.eventById(parseInput(IdParams, raw, 'path').id), 'detail') };
  }

  /** Text match on title, slug and description; status upcoming = not started yet. */
  @Get('search')
  @CatalogRoute('search')
  search(@Query() raw: unknown): { events: object[] } {
    const q = parseInput(SearchQuery, raw, 'query');
    const text = q.query?.toLowerCase();
    const found = this.data.fixture.events.filter(({ event, seriesId, gameStatus }) => {
      if (text && ![event.title, event.slug, event.description].some((field) => field.toLowerCase().includes(text)))
        return false;
      if (q.seriesIds && !q.seriesIds.includes(seriesId)) return false;
      if (q.status === 'active') return event.active && !event.closed;
      if (q.status === 'closed') return event.closed;
      if (q.status === 'upcoming') return gameStatus === 'scheduled' && !event.closed;
      return true;
    });
    const limit = q.limit ?? SEARCH_PAGE;
    const offset = ((q.page ?? 1) - 1) * limit;
    return { events: found.slice(offset, offset + limit).map((e) => this.data.render(e, 'detail')) };
  }
}
