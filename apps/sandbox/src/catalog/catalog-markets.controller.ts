import { Controller, Get, Param, Query } from '@nestjs/common';

import { retailBbo, retailBook } from '../retail/retail-book-render.js';
import { SurfaceError } from '../shared/surface-error.js';
import { CatalogData } from './catalog-data.service.js';
import { parseInput } from './catalog-input.js';
import { CatalogRoute } from './catalog-surface.guard.js';
import { marketMatches } from './query/event-filter.js';
import { sortAndPage } from './query/sort-page.js';
import { renderMarket } from './render/market-render.js';
import { IdParams, MarketsQuery, SlugParams } from './wire/catalog-query.wire.js';

@Controller('v1')
export class CatalogMarketsController {
  constructor(private readonly data: CatalogData) {}

  @Get('markets')
  @CatalogRoute('markets')
  markets(@Query() raw: unknown): { markets: object[] } {
    const query = parseInput(MarketsQuery, raw, 'query');
    const markets = this.data.fixture.markets.filter((entry) => marketMatches(entry, query));
    return {
      markets: sortAndPage(markets, query, (m) => m.market).map((m) =>
        renderMarket(m.market, 'detail', this.data.live),
      ),
    };
  }

  @Get('market/id/:id')
  @CatalogRoute('market')
  market(@Param() raw: unknown): { market: object } {
    return {
      market: renderMarket(this.data.marketById(parseInput(IdParams, raw, 'path').id).market, 'detail', this.data.live),
    };
  }

  @Get('market/slug/:slug')
  @CatalogRoute('marketBySlug')
  marketBySlug(@Param() raw: unknown): { market: object } {
    return {
      market: renderMarket(
        this.data.marketBySlug(parseInput(SlugParams, raw, 'path').slug).market,
        'detail',
        this.data.live,
      ),
    };
  }

  /** The live book of the engine instrument whose symbol is the slug. */
  @Get('markets/:slug/book')
  @CatalogRoute('book')
  book(@Param() raw: unknown): object {
    return retailBook(this.data.engine, this.data.marketBySlug(parseInput(SlugParams, raw, 'path').slug).symbol);
  }

  @Get('markets/:slug/bbo')
  @CatalogRoute('bbo')
  bbo(@Param() raw: unknown): object {
    return retailBbo(this.data.engine, this.data.marketBySlug(parseInput(SlugParams, raw, 'path').slug).symbol);
  }

  /** Only expired and terminated markets are settled; any other is 404 here. */
  @Get('markets/:slug/settlement')
  @CatalogRoute('settlement')
  settlement(@Param() raw: unknown): { marketSlug: string; settlementPrice: object; settledAt: string } {
    const entry = this.data.marketBySlug(parseInput(SlugParams, raw, 'path').slug);
    if (!entry.settlement) throw new SurfaceError(404, `market ${entry.market.slug} is not settled`);
    return {
      marketSlug: entry.market.slug,
      settlementPrice: { value: entry.settlement.price.toFixed(2), currency: 'USD' },
      settledAt: entry.settlement.settledAt,
    };
  }
}
