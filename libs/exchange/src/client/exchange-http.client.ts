import { Inject, Injectable } from '@nestjs/common';
import { ExchangeTokenProvider } from '@lib/auth';
import { type BudgetedReply, type RouteBudget } from '@lib/ratelimit';
import { UpstreamCalls } from '@lib/upstream';
import { GATEWAY_CONFIG, type JsonCall, urlOf } from '@lib/core';
import type { ExchangeConfigView } from '../config/exchange.config.js';

export interface ExchangeCall extends JsonCall {
  /**
   * What the call spends of the shared upstream budget (EXCHANGE_BUDGETS, declared in this lib), taken after
   * validation and before sending; `null` only for operations with no published limit.
   */
  budget: RouteBudget | null;
  /** The calling client's team, whose share of each bucket the call also takes. */
  team: string;
  /** The calling client's id: its own bound on calls in flight (bulkheads). */
  client?: string;
  /** Operations this call counts for in buckets that count operations (a batch of n: n). */
  cost?: number;
  /** The client's `Prefer: wait` in ms (capped): queue for budget this long rather than answer 429. */
  preferWaitMs?: number;
  /** `firms/<FIRM>/users/<USER>`, sent as x-participant-id on account-scoped routes (spec §5.1.4). */
  participant?: string;
  /** spec §4.1: only the health check is unauthenticated. */
  anonymous?: boolean;
  /** Added to any problem this call ends in (e.g. the clordId of an insert). */
  context?: Record<string, unknown>;
  /** A read a cancel cannot be sent without: never refused by the bulkheads (UpstreamCall.forCancel). */
  forCancel?: boolean;
}

/**
 * Every exchange REST call goes through here, onto the one upstream-call pipeline (UpstreamCalls):
 * bearer token attached per try, a 401 answered by one refresh and one resend that pays budget again
 * (a 401 means the request was not processed, so even an insert is safe to resend), upstream errors
 * mapped to problems. Nothing else is ever resent.
 */
@Injectable()
export class ExchangeHttpClient {
  private readonly base: string;
  private readonly timeoutMs: number;

  constructor(
    @Inject(GATEWAY_CONFIG) config: ExchangeConfigView,
    private readonly calls: UpstreamCalls,
    private readonly tokens: ExchangeTokenProvider,
  ) {
    this.base = config.environments[config.environment]!.exchangeUrl;
    this.timeoutMs = config.exchange.requestTimeoutMs;
  }

  send(call: ExchangeCall): Promise<BudgetedReply> {
    const url = urlOf(this.base, call);
    const { tokens } = this;
    return this.calls.send({
      surface: 'exchange',
      url,
      method: call.method,
      body: call.body,
      requestId: call.requestId,
      timeoutMs: call.timeoutMs ?? this.timeoutMs,
      headers: call.participant ? { 'x-participant-id': call.participant } : {},
      budget: call.budget,
      team: call.team,
      client: call.client,
      cost: call.cost,
      preferWaitMs: call.preferWaitMs,
      context: call.context,
      forCancel: call.forCancel,
      credentials: call.anonymous
        ? undefined
        : {
            // The token is fetched (if it must be) before budget is taken; the headers then read the cached one.
            prepare: () => tokens.authorization(url),
            headers: async () => ({ authorization: await tokens.authorization(url) }),
            unauthorized: (_reply, sent) => {
              tokens.rejected(sent.authorization);
              return true;
            },
          },
    });
  }
}
