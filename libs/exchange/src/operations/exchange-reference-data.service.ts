import { Injectable } from '@nestjs/common';
import { type BudgetedReply } from '@lib/ratelimit';

import { ExchangeHttpClient } from '../client/exchange-http.client.js';
import type { InstrumentListRequest } from '../schemas/instrument-list.schema.js';
import type { JsonObject } from '../schemas/wire-types.schema.js';
import type { CallerContext } from './caller-context.js';
import { EXCHANGE_BUDGETS } from '../budget/exchange-budgets.js';

/** Reference data (spec 4.1 /v1/refdata/*): not account-scoped. */
@Injectable()
export class ExchangeReferenceData {
  constructor(private readonly exchange: ExchangeHttpClient) {}

  instruments(caller: CallerContext, request: InstrumentListRequest): Promise<BudgetedReply> {
    return this.exchange.send({
      ...caller,
      method: 'POST',
      path: '/v1/refdata/instruments',
      body: request,
      budget: EXCHANGE_BUDGETS.instruments,
    });
  }

  symbols(caller: CallerContext, request: JsonObject): Promise<BudgetedReply> {
    return this.exchange.send({
      ...caller,
      method: 'POST',
      path: '/v1/refdata/symbols',
      body: request,
      budget: EXCHANGE_BUDGETS.symbols,
    });
  }

  metadata(caller: CallerContext, request: JsonObject): Promise<BudgetedReply> {
    // No published limit for metadata (upstream-facts limits "list instruments and list symbols" only).
    return this.exchange.send({ ...caller, method: 'POST', path: '/v1/refdata/metadata', body: request, budget: null });
  }
}
