import { Injectable } from '@nestjs/common';
import { Bulkheads, type InFlightCall, type JsonReply, RateLimitedError, UpstreamHttp, upstreamTransportError } from '@lib/core';

import type { Decision } from '../budget/decision.js';
import { type BudgetedReply, BudgetGate } from '../gate/budget-gate.js';
import { announceSend } from './send-hook.js';
import { resendUnavailable, type UpstreamCall } from './upstream-call.js';

/** `scheme://authority`: the pool a call goes through. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** Where a call takes its place among the calls in flight; a cancel is counted, never refused. */
function placeOf(call: UpstreamCall): InFlightCall {
  return {
    origin: ORIGIN.exec(call.url)?.[0] ?? call.url,
    surface: call.surface,
    lane: call.blocking ? 'blocking' : 'ordinary',
    team: call.team,
    client: call.client,
    exempt: call.budget?.class === 'cancel',
  };
}

/** One try's answer with the decision that paid for it. */
export interface UpstreamTry {
  reply: JsonReply;
  decision: Decision | undefined;
}

/**
 * The one path of every upstream REST call (exchange, retail, catalog): a place among the calls in
 * flight of the client and its team (Bulkheads: past a bound, 429 before anything else) → have the credentials ready (a
 * token) → take budget → authenticate → check the decision is still fresh (one that aged past
 * `limits.maxDecisionAgeMs`, a stalled process, is withdrawn and its tokens given back) → send → on a 401 the credentials can mend, ready them again,
 * take budget again and resend once (every try pays: a
 * resend the budget has no room for within the client's wait is a 503 with Retry-After) → feed the
 * answer back to the budget (an upstream 429 cools the route for its class) → map the outcome through
 * the one error mapper (`upstreamError`, `upstreamTransportError` in @lib/core). Validation happens
 * before: a call reaching here is well-formed. Nothing but the 401 is ever resent.
 */
@Injectable()
export class UpstreamCalls {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly gate: BudgetGate,
    private readonly bulkheads: Bulkheads,
  ) {}

  /** The answer (any status below 400) with its decision, or the failure thrown as its problem. */
  async send(call: UpstreamCall): Promise<BudgetedReply> {
    const { reply, decision } = await this.exchange(call);
    return this.gate.answer(call.surface, reply, decision, call.context);
  }

  /** Every step but the mapping of an error answer: for a caller that reads some error statuses itself (a cacheable 404). */
  async exchange(call: UpstreamCall): Promise<UpstreamTry> {
    // First: a call past its bound spends nothing (no token fetch, no budget). The place is held through the resend.
    const release = await this.bulkheads.enter(placeOf(call), call.preferWaitMs);
    try {
      let { decision, sent, reply } = await this.attempt(call);
      if (reply.status === 401 && call.credentials?.unauthorized?.(reply, sent)) {
        ({ decision, sent, reply } = await this.attempt(call, true));
      }
      // Awaited (bounded by the Redis command timeout, never rejects): the cool-down holds before the client hears of the 429.
      await this.gate.feedback(call.budget, reply, call.account);
      return { reply, decision };
    } finally {
      release();
    }
  }

  /**
   * One try: credentials ready → budget → headers → the decision checked still fresh (a late one is
   * withdrawn, nothing sent) → send. A resend's refusal is the 503 that says the request was not processed.
   */
  private async attempt(call: UpstreamCall, resend = false): Promise<UpstreamTry & { sent: Record<string, string> }> {
    await call.credentials?.prepare?.();
    let decision: Decision | undefined;
    let sent: Record<string, string>;
    try {
      decision = await this.gate.spend(call.budget, call.team, call.cost, call.preferWaitMs, call.account);
      sent = await this.credentials(call);
      this.gate.beforeSend(call.budget, call.team, call.cost, call.account, decision);
    } catch (error) {
      throw resend && error instanceof RateLimitedError ? resendUnavailable(error, call.context) : error;
    }
    announceSend({ surface: call.surface, method: call.method, path: call.url.replace(ORIGIN, '').split('?')[0]!, budgetClass: call.budget?.class, attempt: resend ? 2 : 1 });
    return { decision, sent, reply: await this.once(call, sent) };
  }

  private async credentials(call: UpstreamCall): Promise<Record<string, string>> {
    return call.credentials ? await call.credentials.headers() : {};
  }

  private async once(call: UpstreamCall, credentials: Record<string, string>): Promise<JsonReply> {
    let reply: JsonReply;
    try {
      reply = await this.http.json(call.url, {
        method: call.method,
        body: call.body,
        headers: { ...call.headers, ...credentials },
        requestId: call.requestId,
        timeoutMs: call.timeoutMs,
        lane: call.blocking ? 'blocking' : 'ordinary',
      });
    } catch (error) {
      throw upstreamTransportError(call.surface, error, call.context);
    }
    call.credentials?.observe?.(reply);
    return reply;
  }
}
