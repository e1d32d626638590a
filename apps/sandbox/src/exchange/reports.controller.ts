import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';

import { MatchingEngine, type TradeStatistics } from '../engine/index.js';
import { parseBody } from '../shared/parse-body.js';
import { AccountScoped, Caller, ExchangeScope } from './exchange-auth.decorators.js';
import type { ExchangeCaller } from './exchange-authorization.js';
import { ExchangeOperation } from './exchange-operation.decorator.js';
import { firmAccounts, visibleAccounts } from './firm-accounts.js';
import { OrderSearchRequest, SearchPageSize, TradeStatsRequest } from './wire/exchange-request.wire.js';
import { epochMs, isoTime } from './wire/int64-wire.js';
import { type TradeRecord, tradeRecord } from './wire/ledger-wire.js';
import { type ExecutionRecord, type OrderRecord, executionRecord, orderRecord } from './wire/order-wire.js';

/** The trade search payload is not shown upstream; the sandbox's own, paged like the order search. */
const TradeSearchBody = z.strictObject({
  symbol: z.string().optional(),
  accounts: z.array(z.string()).optional(),
  orderId: z.string().optional(),
  startTime: z.iso.datetime({ offset: true }).optional(),
  endTime: z.iso.datetime({ offset: true }).optional(),
  pageSize: SearchPageSize.optional(),
  pageToken: z.string().optional(),
});

interface OrderSearchAnswer {
  order: OrderRecord[];
  nextPageToken: string;
  lastExecutions: ExecutionRecord[];
}

interface TradeStatsAnswer {
  stats: TradeStatistics;
  bars: TradeStatistics[];
  barStartTime: string[];
  barEndTime: string[];
}

/** Spec 4.1 /v1/report/*: a firm sees only its own users' orders and trades. */
@Controller('v1/report')
@AccountScoped()
@ExchangeScope('read:reports')
export class ReportsController {
  constructor(private readonly engine: MatchingEngine) {}

  @Post('orders/search')
  @HttpCode(200)
  @ExchangeOperation('searchOrders', 'search')
  searchOrders(@Caller() caller: ExchangeCaller, @Body() body: unknown): OrderSearchAnswer {
    const { startTime, endTime, accounts: requested, ...query } = parseBody(OrderSearchRequest, body);
    const accounts = visibleAccounts(caller, requested);
    if (accounts.length === 0) return { order: [], nextPageToken: '', lastExecutions: [] };
    const found = this.engine.searchOrders({
      ...query,
      accounts,
      startTime: epochMs(startTime),
      endTime: epochMs(endTime),
    });
    return {
      order: found.order.map(orderRecord),
      nextPageToken: found.nextPageToken,
      lastExecutions: found.lastExecutions.map(executionRecord),
    };
  }

  @Post('trades/search')
  @HttpCode(200)
  @ExchangeOperation('searchTrades', 'search')
  searchTrades(
    @Caller() caller: ExchangeCaller,
    @Body() body: unknown,
  ): { trades: TradeRecord[]; nextPageToken: string } {
    const { startTime, endTime, accounts: requested, ...query } = parseBody(TradeSearchBody, body);
    const accounts = visibleAccounts(caller, requested);
    if (accounts.length === 0) return { trades: [], nextPageToken: '' };
    const found = this.engine.trades({ ...query, accounts, startTime: epochMs(startTime), endTime: epochMs(endTime) });
    const own = new Set(firmAccounts(caller));
    return {
      trades: found.trades.map((trade) => tradeRecord(trade, (account) => own.has(account))),
      nextPageToken: found.nextPageToken,
    };
  }

  /** Scope not shown upstream; read:reports is the documented one closest to it. Market-wide, like upstream's. */
  @Post('trades/stats')
  @HttpCode(200)
  @ExchangeOperation('tradeStats', 'trade-stats')
  tradeStats(@Body() body: unknown): TradeStatsAnswer {
    const { startTime, endTime, ...query } = parseBody(TradeStatsRequest, body);
    const stats = this.engine.tradeStats({ ...query, startTime: epochMs(startTime), endTime: epochMs(endTime) });
    return {
      stats: stats.stats,
      bars: stats.bars,
      barStartTime: stats.barStartTime.map(isoTime),
      barEndTime: stats.barEndTime.map(isoTime),
    };
  }
}
