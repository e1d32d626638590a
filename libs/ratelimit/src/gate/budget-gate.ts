import { Injectable } from '@nestjs/common';

import type { Decision } from '../budget/decision.js';
import type { RequestClass } from '../budget/limits.types.js';
import { PriorityLane } from '../budget/priority-lane.js';
import { type RouteBudget, budgetFor } from '../budget/route-budgets.js';
import { rateLimitedError, withPreferenceApplied } from '../http/rate-limit-headers.js';
import { RateLimiter } from '../rate-limiter.service.js';

/** A cool-down an upstream answer asked for (read by the upstream pipeline, @lib/upstream): how long, and for which classes. */
export interface CoolDownRequest {
  seconds: number;
  classes: RequestClass[];
}

/**
 * The one place every upstream call spends its budget: take all of the route's buckets (and the
 * team's share) in one decision, or wait when the client asked to (`Prefer: wait`), or refuse with
 * 429 before anything is sent; and store the cluster-wide cool-down of the route's buckets that an
 * upstream 429 asked for. It reads no upstream answer: mapping outcomes is the pipeline's (@lib/upstream).
 */
@Injectable()
export class BudgetGate {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly lane: PriorityLane,
  ) {}

  /**
   * `waitMs`: the client's `Prefer: wait`, already capped; queue this long for budget instead of a 429.
   * `account`: the retail API key the call is signed with (per-key buckets).
   */
  async spend(
    budget: RouteBudget | null,
    team: string | undefined,
    cost?: number,
    waitMs?: number,
    account?: string,
  ): Promise<Decision | undefined> {
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
  beforeSend(
    budget: RouteBudget | null,
    team: string | undefined,
    cost: number | undefined,
    account: string | undefined,
    decision: Decision | undefined,
  ): void {
    // Every upstream call passes here: a fresh decision costs one clock read, the request is rebuilt only for a late one.
    if (budget === null || decision === undefined || !this.limiter.aged(decision)) return;
    const late = this.limiter.lateAtSend(budgetFor(budget, team, cost, account, this.lane.inUse), decision);
    if (!late) return;
    const error = rateLimitedError(late);
    throw decision.preferWaitMs === undefined ? error : withPreferenceApplied(error, decision.preferWaitMs);
  }

  /** A try stopped after its budget decision and before its send (nothing sent): its tokens are given back (RateLimiter.giveBack). */
  giveBack(
    budget: RouteBudget | null,
    team: string | undefined,
    cost: number | undefined,
    account: string | undefined,
    decision: Decision | undefined,
  ): void {
    if (budget === null || decision === undefined) return;
    this.limiter.giveBack(budgetFor(budget, team, cost, account, this.lane.inUse), decision);
  }

  /**
   * Cools the route's buckets for the classes `throttle` names (nothing when undefined). Never rejects
   * (a lost cool-down is only a lost hint); resolves once it is stored, for callers that must not
   * answer before it holds.
   */
  async coolDown(budget: RouteBudget, throttle: CoolDownRequest | undefined, account?: string): Promise<void> {
    if (!throttle) return;
    await this.limiter
      .coolDown(budget.buckets, throttle.seconds, { classes: throttle.classes, account })
      .catch(() => undefined);
  }
}
