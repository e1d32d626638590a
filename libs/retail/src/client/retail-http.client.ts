import { Inject, Injectable } from '@nestjs/common';
import { RetailSigner } from '@lib/auth';
import { type BudgetedReply, type RouteBudget } from '@lib/ratelimit';
import { UpstreamCalls } from '@lib/upstream';
import { GATEWAY_CONFIG, type JsonCall, type JsonReply, urlOf } from '@lib/core';
import type { RetailConfigView } from '../config/retail.config.js';

export interface RetailCall extends JsonCall {
  /**
   * What the call spends of the shared upstream budget (RETAIL_BUDGETS, declared in this lib), taken after
   * validation and before sending; `null` only for operations with no published limit.
   */
  budget: RouteBudget | null;
  /** The calling client's team, whose share of each bucket the call also takes. */
  team: string;
  /** The calling client's id: its own bound on calls in flight (bulkheads). */
  client?: string;
  /** Holds its connection until the order is done (synchronousExecution): the blocking pool and allowance. */
  blocking?: boolean;
  /** The client's `Prefer: wait` in ms (capped): queue for budget this long rather than answer 429. */
  preferWaitMs?: number;
  /** Name of the retail account (key) the request is signed with. */
  account: string;
  context?: Record<string, unknown>;
}

/**
 * Every retail REST call goes through here, onto the one upstream-call pipeline (UpstreamCalls): signed
 * per spec §5.2 on every try, the server clock learned from each answer's Date header, and a 401 that
 * the learned offset explains answered by one re-signed resend that pays budget again (a 401 means the
 * request was not processed). Upstream errors become problems.
 */
@Injectable()
export class RetailHttpClient {
  readonly base: string;
  /** The deadline of an ordinary call (config `retail.requestTimeoutMs`); blocking calls extend it. */
  readonly timeoutMs: number;

  constructor(
    @Inject(GATEWAY_CONFIG) config: RetailConfigView,
    private readonly calls: UpstreamCalls,
    private readonly signer: RetailSigner,
  ) {
    this.base = config.environments[config.environment]!.retailUrl;
    this.timeoutMs = config.retail.requestTimeoutMs;
  }

  send(call: RetailCall): Promise<BudgetedReply> {
    const url = urlOf(this.base, call);
    const { signer } = this;
    return this.calls.send({
      surface: 'retail',
      url,
      method: call.method,
      body: call.body,
      requestId: call.requestId,
      timeoutMs: call.timeoutMs ?? this.timeoutMs,
      budget: call.budget,
      team: call.team,
      client: call.client,
      blocking: call.blocking,
      preferWaitMs: call.preferWaitMs,
      account: call.account,
      context: call.context,
      credentials: {
        headers: () => signer.sign(call.account, call.method, url),
        observe: (reply) => {
          if (reply.status !== 401) signer.observeServerDate(dateOf(reply), reply.sentAt, reply.receivedAt);
        },
        unauthorized: (reply) => signer.observeUnauthorized(dateOf(reply), reply.sentAt, reply.receivedAt),
      },
    });
  }
}

function dateOf(reply: JsonReply): string | undefined {
  const date = reply.headers.date;
  return typeof date === 'string' ? date : undefined;
}
