import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import {
  IdParamsSchema,
  MarketsQuerySchema,
  NoQuerySchema,
  SlugParamsSchema,
  type IdParams,
  type MarketsQuery,
  type NoQuery,
  type SlugParams,
} from '@lib/catalog';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { RequireScopes } from '../common/auth.decorators.js';
import { ZodParams, ZodQuery } from '../common/zod-params.js';
import { CatalogResponder } from './catalog-responder.js';

/**
 * Markets. Records and settlements are reference data (read:instruments); book and best bid/offer
 * are market data (read:marketdata: "best bid/offer and streaming market data", spec §5.1).
 */
@ApiTags('catalog')
@ApiBearerAuth()
@Controller('catalog/v1')
export class CatalogMarketsController {
  constructor(private readonly responder: CatalogResponder) {}

  @Get('markets')
  @RequireScopes('read:instruments')
  markets(@ZodQuery(MarketsQuerySchema) query: MarketsQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'markets', {}, query);
  }

  @Get('market/id/:id')
  @RequireScopes('read:instruments')
  market(@ZodParams(IdParamsSchema) params: IdParams, @ZodQuery(NoQuerySchema) query: NoQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'market', params, query);
  }

  @Get('market/slug/:slug')
  @RequireScopes('read:instruments')
  marketBySlug(@ZodParams(SlugParamsSchema) params: SlugParams, @ZodQuery(NoQuerySchema) query: NoQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'marketBySlug', params, query);
  }

  @Get('markets/:slug/book')
  @RequireScopes('read:marketdata')
  book(@ZodParams(SlugParamsSchema) params: SlugParams, @ZodQuery(NoQuerySchema) query: NoQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'book', params, query);
  }

  @Get('markets/:slug/bbo')
  @RequireScopes('read:marketdata')
  bbo(@ZodParams(SlugParamsSchema) params: SlugParams, @ZodQuery(NoQuerySchema) query: NoQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'bbo', params, query);
  }

  @Get('markets/:slug/settlement')
  @RequireScopes('read:instruments')
  settlement(@ZodParams(SlugParamsSchema) params: SlugParams, @ZodQuery(NoQuerySchema) query: NoQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'settlement', params, query);
  }
}
