import { Injectable, Optional } from '@nestjs/common';
import { Clock, type JsonReply, okOrThrow, parseBody, systemClock } from '@lib/core';

import type { Decision } from '../budget/decision.js';
import { PriorityLane } from '../budget/priority-lane.js';
import { type RouteBudget, budgetFor } from '../budget/route-budgets.js';
import { rateLimitedError, withPreferenceApplied } from '../http/rate-limit-headers.js';
import { upstreamThrottleOf } from '../http/upstream-feedback.js';
import { RateLimiter } from '../rate-limiter.service.js';

/** An upstream answer with the budget decision that let it be sent (for the RateLimit response headers). */
export interface BudgetedReply extends JsonReply {
  decision?: Decision;
}

/**
 * The one place every upstream call spends its budget and reports back: take all of the route's
 * buckets (and the team's share) in one decision, or wait when the client asked to
 * (`Prefer: wait`), or refuse with 429 before anything is sent; and turn an upstream 429 into a
 * cluster-wide cool-down of the route's buckets for the request class that got it.
 */
@Injectable()
export class BudgetGate {
  private readonly clock: Clock;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly lane: PriorityLane,
    @Optional() clock?: Clock, // optional as the limiter's is: the module runs without ClockModule
  ) {
    this.clock = clock ?? systemClock;
  }

  /**
   * `waitMs`: the client's `Prefer: wait`, already capped; queue this long for budget instead of a 429.
   * `account`: the retail API key the call is signed with (per-key buckets).
   */
  async spend(budget: RouteBudget | null, team: string | undefined, cost?: number, waitMs?: number, account?: string): Promise<Decision | undefined> {
    if (budget === null) return undefined;
    const request = budgetFor(budget, team, cost, account, this.lane.inUse);
    if (!waitMs) {
      const decision = await this.limiter.take(request);
      if (decision.allowed) return decision;
      // A pacing bucket (retail.key: 20/s per key) holds the request for its turn instead of refusing it;
      // a 429 after that wait is the BudgetWaitTooLongError, with no Preference-Applied (the client asked for none).
      const paceMs = decision.limitedBy === 'bucket' ? this.limiter.buckets.get(decision.bucket).paceMs : 0;
      if (decision.retryAfterMs > paceMs) throw rateLimitedError(decision);
      return this.limiter.takeOrWait(request, paceMs);
    }
    try {
      return { ...(await this.limiter.takeOrWait(request, waitMs)), preferWaitMs: waitMs };
    } catch (error) {
      throw withPreferenceApplied(error, waitMs);
    }
  }

  /**
   * Right before the send: throws the refusal of a decision that aged past `limits.maxDecisionAgeMs`
   * since it was asked for (see RateLimiter.lateAtSend), its tokens given back.
   */
  beforeSend(budget: RouteBudget | null, team: string | undefined, cost: number | undefined, account: string | undefined, decision: Decision | undefined): void {
    // Every upstream call passes here: a fresh decision costs one clock read, the request is rebuilt only for a late one.
    if (budget === null || decision === undefined || !this.limiter.aged(decision)) return;
    const late = this.limiter.lateAtSend(budgetFor(budget, team, cost, account, this.lane.inUse), decision);
    if (!late) return;
    const error = rateLimitedError(late);
    throw decision.preferWaitMs === undefined ? error : withPreferenceApplied(error, decision.preferWaitMs);
  }

  /**
   * The upstream answer with the decision that let it be sent, or its failure thrown as a problem
   * (which still carries `Preference-Applied` when the client's wait was honoured).
   */
  answer(surface: string, reply: JsonReply, decision: Decision | undefined, extensions?: Record<string, unknown>): BudgetedReply {
    try {
      return { ...okOrThrow(surface, reply, extensions), decision };
    } catch (error) {
      throw decision?.preferWaitMs === undefined ? error : withPreferenceApplied(error, decision.preferWaitMs);
    }
  }

  /**
   * Reads a failed upstream answer for throttling signals. Never rejects (a lost cool-down is only a
   * lost hint); resolves once any cool-down is stored, for callers that must not answer before it holds.
   */
  async feedback(budget: RouteBudget | null, reply: JsonReply, account?: string): Promise<void> {
    if (budget === null || reply.status < 400) return;
    const retryAfter = reply.headers['retry-after'];
    const body = parseBody(reply.text);
    const message = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : undefined;
    const throttle = upstreamThrottleOf(
      { status: reply.status, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined, message: typeof message === 'string' ? message : undefined },
      budget.class,
      this.clock.wallNow(), // a Retry-After HTTP date is another party's wall clock
    );
    if (throttle) await this.limiter.coolDown(budget.buckets, throttle.seconds, { classes: throttle.classes, account }).catch(() => undefined);
  }
}
