import { Injectable, Optional } from '@nestjs/common';
import {
  Bulkheads,
  Clock,
  DomainError,
  ErrorCode,
  type InFlightCall,
  type JsonReply,
  type JsonRequest,
  RateLimitedError,
  UpstreamHttp,
  systemClock,
} from '@lib/core';
import { type BudgetedReply, BudgetGate, type Decision, type RouteBudget, withPreferenceApplied } from '@lib/ratelimit';

import { okOrThrow, throttleOfReply } from '../mapping/http-outcome.js';
import { upstreamTransportError } from '../mapping/transport-outcome.js';
import { announceSend, checkSend } from './send-hook.js';

/** How one surface authenticates a try; absent for unauthenticated calls (catalog, exchange health). */
export interface UpstreamCredentials {
  /**
   * Whatever a try may have to wait for (a bearer token being fetched), had before the try takes budget:
   * a try never waits between its budget and its send (tries admitted at the budget's pace would leave
   * bunched), and one that cannot get credentials costs no budget. Rejects with the problem to answer.
   */
  prepare?(): Promise<unknown>;
  /** Headers that authenticate one try (the current bearer token, a fresh signature), right before it is sent. */
  headers(): Promise<Record<string, string>> | Record<string, string>;
  /** Reads every answer first (the retail signer learns the server clock from it). */
  observe?(reply: JsonReply): void;
  /**
   * A 401 came back to `sent`: true when one resend with fresh credentials may pass (a 401 means the
   * request was not processed, so even an order may be resent once).
   */
  unauthorized?(reply: JsonReply, sent: Record<string, string>): boolean;
}

/** One upstream call, validated already, as the pipeline sends it (see UpstreamCalls). */
export interface UpstreamCall extends Omit<JsonRequest, 'headers'> {
  /** `exchange`, `retail` or `catalog`: named in problems. */
  surface: string;
  url: string;
  timeoutMs: number;
  /** Headers sent on every try besides the credentials (e.g. x-participant-id). */
  headers?: Record<string, string>;
  /** What each try spends of the shared budget (the surface lib's budgets, e.g. CATALOG_BUDGETS); `null` only for routes with no published limit. */
  budget: RouteBudget | null;
  team?: string;
  /** The calling client's id: its own bound on calls in flight (bulkheads). */
  client?: string;
  /** A call that holds its connection until the upstream is done (a synchronous retail order): the blocking pool and allowance. */
  blocking?: boolean;
  /** A read a cancel cannot be sent without (who owns the order it names): counted among the calls in flight, never refused, as the cancel. */
  forCancel?: boolean;
  /** Operations counted in buckets that count operations (a batch of n: n). */
  cost?: number;
  /** The client's `Prefer: wait` in ms (capped): every try may queue for budget this long. */
  preferWaitMs?: number;
  /** The retail account (API key) the call is signed with: per-key buckets. */
  account?: string;
  credentials?: UpstreamCredentials;
  /** Added to any problem the call ends in (e.g. the clordId of an order). */
  context?: Record<string, unknown>;
}

/**
 * The resend after a 401 found no budget within the client's wait: the client's request was accepted
 * and not processed, so it is the upstream path that is out of capacity now (503), not the client (429).
 */
function resendUnavailable(refusal: RateLimitedError, context: Record<string, unknown> = {}): DomainError {
  return new DomainError(
    ErrorCode.SERVICE_UNAVAILABLE,
    'The upstream refused the credentials once and the budget has no room to resend now; the request was not processed.',
    {
      headers: { 'Retry-After': refusal.headers['Retry-After'] ?? '1' },
      extensions: { ...context, ...refusal.extensions, processed: false },
    },
  );
}

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
    exempt: call.budget?.class === 'cancel' || call.forCancel === true,
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
 * `limits.maxDecisionAgeMs`, a stalled process, is withdrawn and its tokens given back) → the caller's send guard, if any (checkSend: a gateway rule checked after the budget wait;
 * refused, nothing sent, tokens given back) → send → on a 401 the credentials can mend, ready them again,
 * take budget again and resend once (every try pays: a
 * resend the budget has no room for within the client's wait is a 503 with Retry-After) → read the
 * answer for the budget (the HTTP table's 429 row cools the route for its class; the budget gate only
 * stores the cool-down) → map the outcome through the tables of ../mapping (HTTP status, transport
 * error). Validation happens before: a call reaching here is well-formed. Nothing but the 401 is ever resent.
 */
@Injectable()
export class UpstreamCalls {
  private readonly clock: Clock;

  constructor(
    private readonly http: UpstreamHttp,
    private readonly gate: BudgetGate,
    private readonly bulkheads: Bulkheads,
    @Optional() clock?: Clock, // optional as the budget gate's was: the module runs without ClockModule
  ) {
    this.clock = clock ?? systemClock;
  }

  /**
   * The answer (any status below 400) with its decision, or the failure thrown as its problem (the HTTP
   * table), which still carries `Preference-Applied` when the client's wait was honoured.
   */
  async send(call: UpstreamCall): Promise<BudgetedReply> {
    const { reply, decision } = await this.exchange(call);
    try {
      return { ...okOrThrow(call.surface, reply, call.context), decision };
    } catch (error) {
      throw decision?.preferWaitMs === undefined ? error : withPreferenceApplied(error, decision.preferWaitMs);
    }
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
      // Wall time: a Retry-After HTTP date is another party's wall clock.
      if (call.budget !== null)
        await this.gate.coolDown(
          call.budget,
          throttleOfReply(reply, call.budget.class, this.clock.wallNow()),
          call.account,
        );
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
    const send = {
      surface: call.surface,
      method: call.method,
      path: call.url.replace(ORIGIN, '').split('?')[0]!,
      budgetClass: call.budget?.class,
      attempt: resend ? 2 : 1,
    };
    try {
      // The last gateway rule, checked after the budget wait (a halt latched while the order queued): refused, nothing is sent and the budget goes back.
      checkSend(send);
    } catch (refusal) {
      this.gate.giveBack(call.budget, call.team, call.cost, call.account, decision);
      throw refusal;
    }
    announceSend(send);
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
