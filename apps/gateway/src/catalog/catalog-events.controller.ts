import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import {
  EventsQuerySchema,
  IdParamsSchema,
  NoQuerySchema,
  SearchQuerySchema,
  SlugParamsSchema,
  type EventsQuery,
  type IdParams,
  type NoQuery,
  type SearchQuery,
  type SlugParams,
} from '@lib/catalog';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { RequireScopes } from '../common/auth.decorators.js';
import { ZodParams, ZodQuery } from '../common/zod-params.js';
import { CatalogResponder } from './catalog-responder.js';

/** Events and search: reference data, so read:instruments ("instrument listing and metadata", spec §5.1). */
@ApiTags('catalog')
@ApiBearerAuth()
@Controller('catalog/v1')
@RequireScopes('read:instruments')
export class CatalogEventsController {
  constructor(private readonly responder: CatalogResponder) {}

  @Get('events')
  events(@ZodQuery(EventsQuerySchema) query: EventsQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'events', {}, query);
  }

  @Get('events/slug/:slug')
  eventBySlug(@ZodParams(SlugParamsSchema) params: SlugParams, @ZodQuery(NoQuerySchema) query: NoQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'eventBySlug', params, query);
  }

  @Get('events/:id')
  event(@ZodParams(IdParamsSchema) params: IdParams, @ZodQuery(NoQuerySchema) query: NoQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'event', params, query);
  }

  @Get('search')
  search(@ZodQuery(SearchQuerySchema) query: SearchQuery, @Req() req: FastifyRequest, @Res() res: FastifyReply) {
    return this.responder.send(req, res, 'search', {}, query);
  }
}
