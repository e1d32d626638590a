import { Controller, Get, Inject, Query } from '@nestjs/common';

import { parseBody } from '../shared/parse-body.js';
import { SurfaceError } from '../shared/surface-error.js';
import { RetailActivities } from './retail-activities.js';
import { RetailKeyId } from './retail-auth.decorators.js';
import { RetailPortfolioRecords } from './retail-portfolio.records.js';
import { RetailRoute } from './retail-rate-limit.guard.js';
import type { Activity, RetailBalance, RetailPosition } from './wire/retail-records.wire.js';
import { ActivitiesQuery, PositionsQuery } from './wire/retail-request.wire.js';

const DEFAULT_POSITIONS_PAGE = 100;

/** Positions, balances and the activity feed of the signing key, from the engine's ledger. */
@Controller('v1')
export class RetailPortfolioController {
  constructor(
    @Inject(RetailPortfolioRecords) private readonly portfolio: RetailPortfolioRecords,
    @Inject(RetailActivities) private readonly feed: RetailActivities,
  ) {}

  @Get('account/balances')
  @RetailRoute('balances')
  balances(@RetailKeyId() keyId: string): { balances: RetailBalance[] } {
    return { balances: [this.portfolio.balance(keyId)] };
  }

  /** `{positions: {slug: position}, nextCursor?, eof}`, by slug; the cursor is the last slug sent. */
  @Get('portfolio/positions')
  @RetailRoute('positions')
  positions(
    @RetailKeyId() keyId: string,
    @Query() raw: unknown,
  ): { positions: Record<string, RetailPosition>; nextCursor?: string; eof: boolean } {
    const query = parseBody(PositionsQuery, raw);
    const after = query.cursor === undefined ? undefined : Buffer.from(query.cursor, 'base64url').toString();
    if (after !== undefined && !/^[a-z0-9-]+$/.test(after))
      throw new SurfaceError(400, 'cursor is not one this list issued');
    const all = this.portfolio
      .positions(keyId)
      .filter((p) => (!query.market || p.symbol === query.market) && (after === undefined || p.symbol > after));
    const page = all.slice(0, query.limit ?? DEFAULT_POSITIONS_PAGE);
    const eof = page.length === all.length;
    const last = page[page.length - 1];
    return {
      positions: Object.fromEntries(page.map((position) => [position.symbol, this.portfolio.position(position)])),
      ...(eof || !last ? {} : { nextCursor: Buffer.from(last.symbol).toString('base64url') }),
      eof,
    };
  }

  @Get('portfolio/activities')
  @RetailRoute('activities')
  activities(
    @RetailKeyId() keyId: string,
    @Query() raw: unknown,
  ): { activities: Activity[]; nextCursor?: string; eof: boolean } {
    return this.feed.page(keyId, parseBody(ActivitiesQuery, raw));
  }
}
