import { Inject, Injectable } from '@nestjs/common';
import { RetailSigner } from '@lib/auth';
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

export interface RetailCall extends JsonCall {
  /**
   * What the call spends of the shared upstream budget (ROUTE_BUDGETS in @lib/ratelimit), taken after
   * validation and before sending; `null` only for operations with no published limit.
   */
  budget: RouteBudget | null;
  /** The calling client's team, whose share of each bucket the call also takes. */
  team: string;
  /** The client's `Prefer: wait` in ms (capped): queue for budget this long rather than answer 429. */
  preferWaitMs?: number;
  /** Name of the retail account (key) the request is signed with. */
  account: string;
  context?: Record<string, unknown>;
}

/**
 * Every retail REST call goes through here: signed per spec §5.2, the server clock learned from each
 * answer's Date header, and a 401 that the learned offset explains answered by one re-signed resend
 * (a 401 means the request was not processed). Upstream errors become problems.
 */
@Injectable()
export class RetailHttpClient {
  readonly base: string;
  /** The deadline of an ordinary call (config `retail.requestTimeoutMs`); blocking calls extend it. */
  readonly timeoutMs: number;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly http: UpstreamHttp,
    private readonly signer: RetailSigner,
    private readonly budget: BudgetGate,
  ) {
    this.base = config.environments[config.environment]!.retailUrl;
    this.timeoutMs = config.retail.requestTimeoutMs;
  }

  async send(call: RetailCall): Promise<BudgetedReply> {
    const url = urlOf(this.base, call);
    const decision = await this.budget.spend(call.budget, call.team, undefined, call.preferWaitMs, call.account);
    let reply = await this.once(call, url);
    if (reply.status === 401 && this.signer.observeUnauthorized(dateOf(reply), reply.sentAt, reply.receivedAt)) {
      reply = await this.once(call, url);
    }
    void this.budget.feedback(call.budget, reply, call.account);
    return this.budget.answer('retail', reply, decision, call.context);
  }

  private async once(call: RetailCall, url: string): Promise<JsonReply> {
    const headers = this.signer.sign(call.account, call.method, url);
    let reply: JsonReply;
    try {
      reply = await this.http.json(url, { method: call.method, body: call.body, headers, requestId: call.requestId, timeoutMs: call.timeoutMs ?? this.timeoutMs });
    } catch (error) {
      throw upstreamTransportError('retail', error, call.context);
    }
    if (reply.status !== 401) this.signer.observeServerDate(dateOf(reply), reply.sentAt, reply.receivedAt);
    return reply;
  }
}

function dateOf(reply: JsonReply): string | undefined {
  const date = reply.headers.date;
  return typeof date === 'string' ? date : undefined;
}
