import { Inject, Injectable } from '@nestjs/common';
import { ExchangeTokenProvider } from '@lib/auth';
import { BudgetGate, type BudgetedReply, type RouteBudget } from '@lib/ratelimit';
import {
  GATEWAY_CONFIG,
  type GatewayConfig,
  type JsonCall,
  type JsonReply,
  UpstreamHttp,
  upstreamTransportError,
  urlOf,
} from '@lib/core';

export interface ExchangeCall extends JsonCall {
  /**
   * What the call spends of the shared upstream budget (ROUTE_BUDGETS in @lib/ratelimit), taken after
   * validation and before sending; `null` only for operations with no published limit.
   */
  budget: RouteBudget | null;
  /** The calling client's team, whose share of each bucket the call also takes. */
  team: string;
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
}

/**
 * Every exchange REST call goes through here: bearer token attached, a 401 answered by one refresh
 * and one resend (a 401 means the request was not processed, so even an insert is safe to resend),
 * and upstream errors mapped to problems. Nothing else is ever resent.
 */
@Injectable()
export class ExchangeHttpClient {
  private readonly base: string;
  private readonly timeoutMs: number;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly http: UpstreamHttp,
    private readonly tokens: ExchangeTokenProvider,
    private readonly budget: BudgetGate,
  ) {
    this.base = config.environments[config.environment]!.exchangeUrl;
    this.timeoutMs = config.exchange.requestTimeoutMs;
  }

  async send(call: ExchangeCall): Promise<BudgetedReply> {
    const url = urlOf(this.base, call);
    const decision = await this.budget.spend(call.budget, call.team, call.cost, call.preferWaitMs);
    let authorization = call.anonymous ? undefined : await this.tokens.authorization(url);
    let reply = await this.once(call, url, authorization);
    if (reply.status === 401 && authorization) {
      this.tokens.rejected(authorization);
      authorization = await this.tokens.authorization(url);
      reply = await this.once(call, url, authorization);
    }
    void this.budget.feedback(call.budget, reply);
    return this.budget.answer('exchange', reply, decision, call.context);
  }

  private async once(call: ExchangeCall, url: string, authorization: string | undefined): Promise<JsonReply> {
    const headers: Record<string, string> = {};
    if (authorization) headers.authorization = authorization;
    if (call.participant) headers['x-participant-id'] = call.participant;
    try {
      return await this.http.json(url, { method: call.method, body: call.body, headers, requestId: call.requestId, timeoutMs: call.timeoutMs ?? this.timeoutMs });
    } catch (error) {
      throw upstreamTransportError('exchange', error, call.context);
    }
  }
}
