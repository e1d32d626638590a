import { Controller, Get, Param, Query } from '@nestjs/common';

import { parseInput } from './catalog-input.js';
import { CatalogRoute } from './catalog-surface.guard.js';
import { CatalogData } from './catalog-data.service.js';
import type { League, Series, Team } from './fixture/catalog-model.js';
import { PROVIDER, type SportEntry } from './fixture/reference-data.js';
import { equalsIfSet, inList, sortAndPage } from './query/sort-page.js';
import {
  IdParams,
  NoQuery,
  SectionQuery,
  SeriesIdParams,
  SeriesQuery,
  SlugParams,
  TeamsQuery,
} from './wire/catalog-query.wire.js';

/** League summary (spec 2.13): what a sport lists of each league. */
const summary = ({ name, slug, image, isOperational, automaticResolution }: League) => ({
  name,
  slug,
  image,
  isOperational,
  automaticResolution,
});
const sportOf = ({ sport, leagues }: SportEntry) => ({
  id: sport.id,
  name: sport.name,
  slug: sport.slug,
  image: sport.image,
  leagues: leagues.map(summary),
});

@Controller()
export class CatalogSportsController {
  constructor(private readonly data: CatalogData) {}

  @Get('v1/series')
  @CatalogRoute('series')
  series(@Query() raw: unknown): { series: Series[] } {
    const q = parseInput(SeriesQuery, raw, 'query');
    const chosen = this.data.fixture.ref.series.filter(
      (s) =>
        inList(s.slug, q.slug) &&
        equalsIfSet(s.archived, q.archived) &&
        equalsIfSet(s.active, q.active) &&
        equalsIfSet(s.closed, q.closed) &&
        equalsIfSet(s.recurrence, q.recurrence),
    );
    return { series: sortAndPage(chosen, q, (s) => s) };
  }

  @Get('v1/series/id/:id')
  @CatalogRoute('seriesById')
  seriesById(@Param() raw: unknown): { series: Series } {
    return { series: this.data.seriesById(parseInput(IdParams, raw, 'path').id) };
  }

  @Get('v1/sports')
  @CatalogRoute('sports')
  sports(@Query() raw: unknown): { sports: object[] } {
    parseInput(NoQuery, raw, 'query');
    return { sports: this.data.fixture.ref.sports.map(sportOf) };
  }

  /** Teams by the data provider's ids, keyed by those ids. */
  @Get('v1/sports/teams/provider')
  @CatalogRoute('teams')
  teams(@Query() raw: unknown): { teams: Record<string, Team> } {
    const q = parseInput(TeamsQuery, raw, 'query');
    const teams: Record<string, Team> = {};
    if (q.provider !== undefined && q.provider !== PROVIDER) return { teams };
    for (const team of this.data.fixture.ref.teams) {
      const providerId = String(team.providerId);
      if (inList(providerId, q.teamIds) && equalsIfSet(team.league, q.league)) teams[providerId] = team;
    }
    return { teams };
  }

  @Get('v1/sports/:seriesId/events')
  @CatalogRoute('seriesEvents')
  seriesEvents(@Param() raw: unknown, @Query() rawQuery: unknown): object {
    const { seriesId } = parseInput(SeriesIdParams, raw, 'path');
    const q = parseInput(SectionQuery, rawQuery, 'query');
    const series = this.data.seriesById(seriesId);
    const entries = this.data.fixture.events.filter((e) => e.seriesId === series.id);
    const league = this.data.fixture.ref.leagueOfSeries.get(series.id)!;
    const { sport } = this.data.fixture.ref.sportOfLeague.get(league.slug)!;
    const category = {
      sport: sport.name,
      image: series.image,
      resolution: league.resolution,
      ordering: league.ordering,
      tags: [1, sport.tagId, league.tagId].join(','),
      series: String(series.id),
      isOperational: league.isOperational,
      automaticResolution: league.automaticResolution,
    };
    // The series decides whether these are games or futures; `type` still filters within it.
    return {
      ...this.data.section(entries, { ...q, type: q.type ?? (series.seriesType === 'futures' ? 'futures' : 'sport') }),
      category,
    };
  }

  @Get('v2/sports/:slug')
  @CatalogRoute('sport')
  sport(@Param() raw: unknown): { sport: object } {
    return { sport: sportOf(this.data.sport(parseInput(SlugParams, raw, 'path').slug)) };
  }

  @Get('v2/leagues/:slug/events')
  @CatalogRoute('leagueEvents')
  leagueEvents(@Param() raw: unknown, @Query() rawQuery: unknown): object {
    const league = this.data.league(parseInput(SlugParams, raw, 'path').slug);
    const q = parseInput(SectionQuery, rawQuery, 'query');
    return {
      ...this.data.section(
        this.data.fixture.events.filter((e) => e.league === league),
        q,
      ),
      league: summary(league),
    };
  }
}
