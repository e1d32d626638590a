import { Get, Res } from '@nestjs/common';
import {
  ActivitiesQuerySchema,
  NoQuerySchema,
  PositionsQuerySchema,
  RetailPortfolio,
  SlugParamsSchema,
  type ActivitiesQuery,
  type PositionsQuery,
  type RetailCaller,
} from '@lib/retail';
import type { FastifyReply } from 'fastify';

import { RequireScopes } from '../common/decorators/auth.decorators.js';
import { relay } from '../common/http/relay.js';
import { ZodParams, ZodQuery } from '../common/pipes/zod-params.js';
import { Caller, RetailController } from './retail.decorators.js';

/** Retail portfolio reads (read:positions) and market data (read:marketdata), at the upstream paths under /retail. */
@RetailController()
export class RetailAccountController {
  constructor(private readonly portfolio: RetailPortfolio) {}

  @Get('account/balances')
  @RequireScopes('read:positions')
  async balances(@Res() res: FastifyReply, @Caller() caller: RetailCaller, @ZodQuery(NoQuerySchema) _query: object) {
    relay(res, await this.portfolio.balances(caller));
  }

  @Get('portfolio/positions')
  @RequireScopes('read:positions')
  async positions(
    @Res() res: FastifyReply,
    @Caller() caller: RetailCaller,
    @ZodQuery(PositionsQuerySchema) query: PositionsQuery,
  ) {
    relay(res, await this.portfolio.positions(caller, query));
  }

  @Get('portfolio/activities')
  @RequireScopes('read:positions')
  async activities(
    @Res() res: FastifyReply,
    @Caller() caller: RetailCaller,
    @ZodQuery(ActivitiesQuerySchema) query: ActivitiesQuery,
  ) {
    relay(res, await this.portfolio.activities(caller, query));
  }

  @Get('markets/:slug/bbo')
  @RequireScopes('read:marketdata')
  async bbo(
    @Res() res: FastifyReply,
    @Caller() caller: RetailCaller,
    @ZodParams(SlugParamsSchema) { slug }: { slug: string },
    @ZodQuery(NoQuerySchema) _query: object,
  ) {
    relay(res, await this.portfolio.bbo(caller, slug));
  }

  @Get('markets/:slug/book')
  @RequireScopes('read:marketdata')
  async book(
    @Res() res: FastifyReply,
    @Caller() caller: RetailCaller,
    @ZodParams(SlugParamsSchema) { slug }: { slug: string },
    @ZodQuery(NoQuerySchema) _query: object,
  ) {
    relay(res, await this.portfolio.book(caller, slug));
  }
}
