import { Controller, Get, Param } from '@nestjs/common';

import { MatchingEngine } from '../engine/index.js';
import { retailBbo, retailBook } from './retail-book-render.js';
import { engineCall } from './retail-engine-error.js';
import { RetailRoute } from './retail-rate-limit.guard.js';

/**
 * Signed market data of the retail surface (spec 4.3); the same records as the catalog's unsigned
 * book and BBO (upstream-facts), so both surfaces render with one function. Unknown market: 404.
 */
@Controller('v1/markets/:slug')
export class RetailMarketsController {
  constructor(private readonly engine: MatchingEngine) {}

  @Get('bbo')
  @RetailRoute('bbo')
  bbo(@Param('slug') slug: string): object {
    return engineCall(() => retailBbo(this.engine, slug));
  }

  @Get('book')
  @RetailRoute('book')
  book(@Param('slug') slug: string): object {
    return engineCall(() => retailBook(this.engine, slug));
  }
}
