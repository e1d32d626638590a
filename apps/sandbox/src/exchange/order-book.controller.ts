import { Controller, Get, Param, Query } from '@nestjs/common';

import { MatchingEngine } from '../engine/index.js';
import { parseBody } from '../shared/parse-body.js';
import { ExchangeScope } from './exchange-auth.decorators.js';
import { ExchangeOperation } from './exchange-operation.decorator.js';
import { OrderBookQuery } from './wire/exchange-request.wire.js';
import { type BboRecord, type BookRecord, bboRecord, bookRecord } from './wire/market-wire.js';

/** Spec 4.1 /v1/orderbook/*: live snapshots of the shared engine's books; an unknown symbol is a 404. */
@Controller('v1/orderbook')
export class OrderBookController {
  constructor(private readonly engine: MatchingEngine) {}

  /** Depth 1-10, default 3 (spec 4.1, 8). */
  @Get(':symbol')
  @ExchangeScope('read:l2marketdata')
  @ExchangeOperation('orderBook', 'book')
  book(@Param('symbol') symbol: string, @Query() query: unknown): BookRecord {
    const { depth } = parseBody(OrderBookQuery, query);
    return bookRecord(this.engine.book(symbol, depth));
  }

  @Get(':symbol/bbo')
  @ExchangeScope('read:marketdata')
  @ExchangeOperation('bbo', 'book')
  bbo(@Param('symbol') symbol: string): BboRecord {
    return bboRecord(this.engine.bbo(symbol));
  }
}
