import { Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import {
  type CallerContext,
  ExchangeReferenceData,
  InstrumentListRequestSchema,
  InstrumentListResponseSchema,
  type InstrumentListRequest,
  type JsonObject,
  MetadataRequestSchema,
  SymbolsRequestSchema,
} from '@lib/exchange';
import type { FastifyReply } from 'fastify';

import { RequireScopes } from '../common/decorators/auth.decorators.js';
import { relay } from '../common/http/relay.js';
import { ZodBody, openApiSchemaOf } from '../common/pipes/zod-params.js';
import { MarketCaller } from './exchange-caller.decorators.js';

/** Reference data (spec 4.1 /v1/refdata/*); every route needs read:instruments (spec 5.1). */
@ApiTags('exchange reference data')
@ApiBearerAuth()
@Controller('exchange/v1/refdata')
export class ExchangeReferenceDataController {
  constructor(private readonly refdata: ExchangeReferenceData) {}

  /** pageSize 1-1000 (default 50); the filter's whereClause is passed as written for upstream to parse. */
  @Post('instruments')
  @HttpCode(200)
  @RequireScopes('read:instruments')
  @ApiOkResponse({ schema: openApiSchemaOf(InstrumentListResponseSchema) })
  async instruments(
    @Res() res: FastifyReply,
    @MarketCaller() caller: CallerContext,
    @ZodBody(InstrumentListRequestSchema) body: InstrumentListRequest,
  ) {
    relay(res, await this.refdata.instruments(caller, body));
  }

  /** Payload not shown (spec 4.1): any JSON object, passed through. */
  @Post('symbols')
  @HttpCode(200)
  @RequireScopes('read:instruments')
  async symbols(
    @Res() res: FastifyReply,
    @MarketCaller() caller: CallerContext,
    @ZodBody(SymbolsRequestSchema) body: JsonObject,
  ) {
    relay(res, await this.refdata.symbols(caller, body));
  }

  /** Payload not shown (spec 4.1): any JSON object, passed through. */
  @Post('metadata')
  @HttpCode(200)
  @RequireScopes('read:instruments')
  async metadata(
    @Res() res: FastifyReply,
    @MarketCaller() caller: CallerContext,
    @ZodBody(MetadataRequestSchema) body: JsonObject,
  ) {
    relay(res, await this.refdata.metadata(caller, body));
  }
}
