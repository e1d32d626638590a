import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';

import { MatchingEngine } from '../engine/index.js';
import { parseBody } from '../shared/parse-body.js';
import { SurfaceError } from '../shared/surface-error.js';
import { ExchangeScope } from './exchange-auth.decorators.js';
import { ExchangeOperation } from './exchange-operation.decorator.js';
import { listInstruments } from './instrument-query/instrument-list.js';
import { InstrumentListRequest } from './wire/exchange-request.wire.js';
import { type InstrumentRecord, instrumentRecord } from './wire/market-wire.js';

/** The metadata payload is not shown upstream; the sandbox takes the symbols wanted (all when none). */
const MetadataBody = z.strictObject({ symbols: z.array(z.string()).optional() });

interface InstrumentMetadata {
  symbol: string;
  metadata: Record<string, string>;
  eventAttributes: InstrumentRecord['eventAttributes'];
  jsonAttributes: string;
}

/** Spec 4.1 /v1/refdata/*: instruments with every listed filter, symbols (same filters) and metadata. */
@Controller('v1/refdata')
@ExchangeScope('read:instruments')
export class ReferenceDataController {
  constructor(private readonly engine: MatchingEngine) {}

  @Post('instruments')
  @HttpCode(200)
  @ExchangeOperation('instruments', 'instruments')
  instruments(@Body() body: unknown): { instruments: InstrumentRecord[]; nextPageToken: string; eof: boolean } {
    const page = listInstruments(this.engine.instruments(), parseBody(InstrumentListRequest, body));
    return { ...page, instruments: page.instruments.map(instrumentRecord) };
  }

  /** Payload not shown upstream: the sandbox takes the instrument list's request and answers symbols only. */
  @Post('symbols')
  @HttpCode(200)
  @ExchangeOperation('symbols', 'instruments')
  symbols(@Body() body: unknown): { symbols: string[]; nextPageToken: string; eof: boolean } {
    const page = listInstruments(this.engine.instruments(), parseBody(InstrumentListRequest, body));
    return {
      symbols: page.instruments.map((instrument) => instrument.symbol),
      nextPageToken: page.nextPageToken,
      eof: page.eof,
    };
  }

  /** No published limit for metadata. A symbol asked for by name must exist (404). */
  @Post('metadata')
  @HttpCode(200)
  @ExchangeOperation('metadata')
  metadata(@Body() body: unknown): { metadata: InstrumentMetadata[] } {
    const { symbols } = parseBody(MetadataBody, body);
    const all = this.engine.instruments();
    const unknown = symbols?.find((symbol) => !all.some((instrument) => instrument.symbol === symbol));
    if (unknown !== undefined) throw new SurfaceError(404, `unknown symbol ${unknown}`);
    const wanted =
      symbols && symbols.length > 0 ? all.filter((instrument) => symbols.includes(instrument.symbol)) : all;
    return {
      metadata: wanted.map(({ symbol, metadata, eventAttributes, jsonAttributes }) => ({
        symbol,
        metadata,
        eventAttributes,
        jsonAttributes,
      })),
    };
  }
}
