import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, NotFoundError, pathSegment } from '@lib/core';
import { type BudgetedReply } from '@lib/ratelimit';

import { ExchangeHttpClient } from '../client/exchange-http.client.js';
import type { BalanceRequest, BalancesRequest, DepositRequest } from '../schemas/funding.schema.js';
import type { AccountCallerContext, CallerContext } from './caller-context.js';
import { EXCHANGE_BUDGETS } from '../budget/exchange-budgets.js';
import type { ExchangeConfigView } from '../config/exchange.config.js';

// upstream-facts publishes limits for order entry and queries only: identity, positions, balances and
// funding have none, hence `budget: null` on those calls.

/** Identity, health, positions, balances and funding (spec 4.1 "other operations"; payloads not shown). */
@Injectable()
export class ExchangeAccounts {
  private readonly processors: ReadonlySet<string>;

  constructor(
    private readonly exchange: ExchangeHttpClient,
    @Inject(GATEWAY_CONFIG) config: ExchangeConfigView,
  ) {
    this.processors = new Set(config.exchange.depositProcessors);
  }

  /** spec 4.1: the only unauthenticated call; it counts against the per-IP public limit. */
  health(caller: CallerContext): Promise<BudgetedReply> {
    return this.exchange.send({
      ...caller,
      method: 'GET',
      path: '/v1/health',
      anonymous: true,
      budget: EXCHANGE_BUDGETS.publicCall,
    });
  }

  whoami(caller: CallerContext): Promise<BudgetedReply> {
    return this.exchange.send({ ...caller, method: 'GET', path: '/v1/whoami', budget: null });
  }

  users(caller: CallerContext): Promise<BudgetedReply> {
    return this.exchange.send({ ...caller, method: 'GET', path: '/v1/users', budget: null });
  }

  positions(caller: AccountCallerContext): Promise<BudgetedReply> {
    return this.exchange.send({ ...caller, method: 'GET', path: '/v1/positions', budget: null });
  }

  balance(caller: AccountCallerContext, request: BalanceRequest): Promise<BudgetedReply> {
    return this.exchange.send({
      ...caller,
      method: 'POST',
      path: '/v1/positions/balance',
      body: request,
      budget: null,
    });
  }

  balances(caller: AccountCallerContext, request: BalancesRequest): Promise<BudgetedReply> {
    return this.exchange.send({
      ...caller,
      method: 'POST',
      path: '/v1/positions/balances',
      body: request,
      budget: null,
    });
  }

  fundingAccounts(caller: AccountCallerContext): Promise<BudgetedReply> {
    return this.exchange.send({ ...caller, method: 'GET', path: '/v1/funding/accounts', budget: null });
  }

  /** An unknown processor is a route the exchange does not have: 404 before anything is sent. */
  async deposit(caller: AccountCallerContext, processor: string, request: DepositRequest): Promise<BudgetedReply> {
    if (!this.processors.has(processor))
      throw new NotFoundError(`No deposit processor ${processor}; known: ${[...this.processors].join(', ')}.`);
    return this.exchange.send({
      ...caller,
      method: 'POST',
      path: `/v1/${pathSegment(processor, 'params.processor')}/deposits`,
      body: request,
      budget: null,
    });
  }
}
