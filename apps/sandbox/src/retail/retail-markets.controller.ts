import { Controller, Get, Inject, Param } from '@nestjs/common';

import { retailBbo, retailBook } from '../catalog/render/book-render.js';
import { SANDBOX_STATE, type SandboxState } from '../shared/sandbox-state.js';
import { engineCall } from './retail-engine-error.js';
import { RetailRoute } from './retail-rate-limit.guard.js';

/**
 * Signed market data of the retail surface (spec 4.3); the same records as the catalog's unsigned
 * book and BBO (upstream-facts), so both surfaces render with one function. Unknown market: 404.
 */
@Controller('v1/markets/:slug')
export class RetailMarketsController {
  constructor(@Inject(SANDBOX_STATE) private readonly state: SandboxState) {}

  @Get('bbo')
  @RetailRoute('bbo')
  bbo(@Param('slug') slug: string): object {
    return engineCall(() => retailBbo(this.state.engine, slug));
  }

  @Get('book')
  @RetailRoute('book')
  book(@Param('slug') slug: string): object {
    return engineCall(() => retailBook(this.state.engine, slug));
  }
}
