import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import {
  IdParamsSchema,
  NoQuerySchema,
  SectionQuerySchema,
  SeriesIdParamsSchema,
  SeriesQuerySchema,
  SlugParamsSchema,
  TeamsQuerySchema,
  type IdParams,
  type NoQuery,
  type SectionQuery,
  type SeriesIdParams,
  type SeriesQuery,
  type SlugParams,
  type TeamsQuery,
} from '@lib/catalog';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { RequireScopes } from '../common/auth.decorators.js';
import { ZodParams, ZodQuery } from '../common/zod-params.js';
import { CatalogResponder } from './catalog-responder.js';

/** Series, sports, leagues and teams: reference data, so read:instruments. */
@ApiTags('catalog')
@ApiBearerAuth()
@Controller('catalog')
@RequireScopes('read:instruments')
export class CatalogSportsController {
  constructor(private readonly responder: CatalogResponder) {}

  @Get('v1/series')
  series(@ZodQuery(SeriesQuerySchema) query: SeriesQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'series', {}, query);
  }

  @Get('v1/series/id/:id')
  seriesById(@ZodParams(IdParamsSchema) params: IdParams, @ZodQuery(NoQuerySchema) query: NoQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'seriesById', params, query);
  }

  @Get('v1/sports')
  sports(@ZodQuery(NoQuerySchema) query: NoQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'sports', {}, query);
  }

  @Get('v1/sports/teams/provider')
  teams(@ZodQuery(TeamsQuerySchema) query: TeamsQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'teams', {}, query);
  }

  @Get('v1/sports/:seriesId/events')
  seriesEvents(@ZodParams(SeriesIdParamsSchema) params: SeriesIdParams, @ZodQuery(SectionQuerySchema) query: SectionQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'seriesEvents', params, query);
  }

  @Get('v2/sports/:slug')
  sport(@ZodParams(SlugParamsSchema) params: SlugParams, @ZodQuery(NoQuerySchema) query: NoQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'sport', params, query);
  }

  @Get('v2/leagues/:slug/events')
  leagueEvents(@ZodParams(SlugParamsSchema) params: SlugParams, @ZodQuery(SectionQuerySchema) query: SectionQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'leagueEvents', params, query);
  }
}
