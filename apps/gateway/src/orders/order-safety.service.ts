import { createHash, randomUUID } from 'node:crypto';

import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Clock, ErrorCode, ForbiddenError, GATEWAY_CONFIG, problemOf, toDomainError } from '@lib/core';
import {
  type IdempotencyRecord,
  JOURNAL_DATABASE,
  type JournalDatabase,
  type JournalEntry,
  canonicalJson,
} from '@lib/journal';
import { rateLimitHeaders } from '@lib/ratelimit';
import { type UpstreamSend, entersOrders, guardUpstreamSend, onUpstreamSend } from '@lib/upstream';

import { clientOf } from '../common/decorators/auth.decorators.js';
import { idempotencyKeyOf } from './idempotency-key.js';
import { KeyWritesOwed } from './key-writes-owed.js';
import { JSON_CONTENT_TYPE, pendingAnswer, replayedAnswer } from './order-answers.js';
import {
  CHANGING_OPERATIONS,
  CREATING_OPERATIONS,
  FOUND_BY_TERMS,
  KEEPS_REQUEST,
  type OrderAnswer,
  type OrderCall,
  UNKNOWN_WHEN_AMBIGUOUS,
  givesOrder,
  isCancel,
} from './order-call.js';
import { outcomeOf } from './order-outcome.js';
import {
  ClordIdInUseError,
  IdempotencyInFlightError,
  IdempotencyKeyReusedError,
  JournalUnavailableError,
  OrderSendTooLateError,
} from './order-safety.errors.js';
import { OrderOrigins } from '../risk/order-origins.service.js';
import { RejectBreaker } from '../risk/reject-breaker.service.js';
import { withoutSecrets } from './redact-secrets.js';
import { RetailOrderChannel, callKey } from './retail-order-channel.js';
import { perOrder } from './batch-records.js';
import { UnknownOrders } from './unknown-orders.service.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** The key a call holds in the idempotency records, with how it was named and the call's own name for its claim. */
interface HeldKey {
  key: string;
  source: 'header' | 'clordId' | 'gateway';
  claimId: string;
}

/**
 * Steps 2 and 6-7 of the order path (architecture.md "Order safety"): the Idempotency-Key (replay,
 * 409 in flight, 422 on another body), the journal's record of the intent written before the send
 * (refused 503 when it cannot be written; cancels pass), then the send, the answer recorded and kept
 * for replay, and an ambiguous outcome of an insert turned into UNKNOWN: a 202, resolved by UnknownOrders.
 */
@Injectable()
export class OrderSafety implements OnApplicationShutdown {
  private readonly logger = new Logger('OrderSafety');
  /** Frees the keys of calls that claimed them and sent nothing, stores answered calls' answers and marks lost ones UNKNOWN, until the database takes them. */
  private readonly keyWrites = new KeyWritesOwed(
    () => this.store.keys,
    () => this.unknown.wake(),
  );
  private readonly staleMs: number;
  /** A call that claimed a key is sent within this of the claim, or not at all (OrderSendTooLateError). */
  private readonly sendWithinMs: number;
  private readonly enabled: boolean;
  /** Each client's API key id (a prefix of the key's SHA-256 from the config, never the key), by client id. */
  private readonly keyIds: ReadonlyMap<string, string>;

  constructor(
    @Inject(JOURNAL_DATABASE) private readonly store: JournalDatabase,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly unknown: UnknownOrders,
    private readonly breaker: RejectBreaker,
    private readonly clock: Clock,
    private readonly retailChannel: RetailOrderChannel,
    private readonly origins: OrderOrigins,
  ) {
    this.staleMs = config.journal.inFlightStaleMs;
    this.sendWithinMs = this.staleMs - Math.min(SEND_MARGIN_MS, this.staleMs / 2);
    this.enabled = config.journal.enabled;
    this.keyIds = new Map(config.clients.map((client) => [client.id, keyIdOf(client.keyHash)]));
  }

  onApplicationShutdown(): void {
    this.keyWrites.stop();
  }

  async run<A>(order: OrderCall<A>): Promise<OrderAnswer> {
    // The reject breaker counts the upstream rejects this call meets (issue 26).
    const call = this.breaker.watched<A, OrderCall<A>>(order);
    if (!this.enabled) return this.unrecorded(call);
    const client = clientOf(call.request);
    const cancel = isCancel(call.operation);
    const creating = UNKNOWN_WHEN_AMBIGUOUS.includes(call.operation);
    const header = idempotencyKeyOf(call.request, call.implicitKey);
    // A call that creates or changes an order always holds a key (the client's, its clordId, or one of the gateway's) so that an UNKNOWN outcome has a record to resolve.
    const claimId = randomUUID();
    const held: HeldKey | undefined =
      header !== undefined
        ? { key: header, source: 'header', claimId }
        : call.implicitKey !== undefined
          ? { key: call.implicitKey, source: 'clordId', claimId }
          : creating
            ? { key: `gateway:${randomUUID()}`, source: 'gateway', claimId }
            : undefined;
    const fingerprint = createHash('sha256')
      .update(canonicalJson({ operation: call.operation, account: call.account, body: call.body }))
      .digest('hex');
    const base: JournalEntry = {
      kind: 'received',
      clientId: client.id,
      team: call.team,
      clordId: call.clordIds.length === 1 ? call.clordIds[0] : undefined,
      orderId: call.orderIds?.length === 1 ? call.orderIds[0] : undefined,
    };

    let admitted: A;
    try {
      await this.othersOrdersRefused(call, client.id);
      admitted = await admitOf(call);
    } catch (refusal) {
      // A resend of a call already entered gets that call's outcome, not today's refusal (a halt latched since): under this key, or,
      // for an insert, the call that sent its clordId (as the claim would find them; one read, on refusals only, nothing claimed).
      const found = held ? await this.entered(call, client.id, held).catch(() => null) : null;
      if (held && found?.existing) return this.replay(call, held, fingerprint, found.existing, base);
      if (held && found?.holder) return this.clordIdHeld(call, held, found.holder, fingerprint, base);
      this.refused(call, base, held, refusal);
      throw refusal;
    }

    // The intent's record and the key's claim go to the database together (one wait, not two); neither fails the other.
    const claimedAt = this.clock.now();
    const journaled = this.store.journal
      .append(
        ...perOrder(
          {
            ...base,
            data: {
              operation: call.operation,
              requestId: call.request.id,
              keyId: this.keyIds.get(client.id),
              address: call.request.ip,
              account: call.account,
              clordIds: call.clordIds,
              idempotencyKey: held?.source === 'gateway' ? undefined : held?.key,
              body: withoutSecrets(call.body),
              ...(call.sent ? { sent: withoutSecrets(call.sent(admitted)) } : {}),
            },
          },
          call.clordIds,
          call.orderIds,
        ),
      )
      .then(
        () => undefined,
        (error: unknown) => error ?? new Error('journal write failed'),
      );

    // A cancel waits for the database at most CANCEL_JOURNAL_WAIT_MS in all (a stalled database would hold it for its timeouts, several of them).
    const late = cancel ? lateAfter(CANCEL_JOURNAL_WAIT_MS) : undefined;
    let claimed = false;
    let lateClaim: Promise<IdempotencyRecord | null> | undefined;
    if (held) {
      let existing: IdempotencyRecord | null = null;
      /** Another call of the team that sent one of this insert's clordIds. */
      let holder: IdempotencyRecord | null = null;
      try {
        const request = KEEPS_REQUEST.includes(call.operation) ? { request: withoutSecrets(call.body) } : {};
        const claim = {
          clientId: client.id,
          key: held.key,
          fingerprint,
          operation: call.operation,
          clordIds: call.clordIds,
          participant: call.account,
          team: call.team,
          claimId: held.claimId,
          ...request,
        };
        // An insert claims its own clordIds with its key: they go out once a key lifetime, whatever key carries them.
        if (call.account !== undefined && call.ownClordIds?.length) {
          ({ existing, holder } = await this.store.keys.claimOnce(
            { ...claim, participant: call.account },
            call.ownClordIds,
            CREATING_OPERATIONS,
          ));
        } else {
          const claiming = this.store.keys.claim(claim);
          const first = late ? await Promise.race([claiming, late.promise]) : await claiming;
          if (first === LATE) {
            lateClaim = claiming;
            claiming.catch(() => undefined); // settled by settleLateClaim
            this.logger.warn(
              `cancel ${call.request.id} passes without waiting for its idempotency record: the journal has not answered in ${CANCEL_JOURNAL_WAIT_MS} ms`,
            );
          } else existing = first;
        }
        claimed = existing === null && holder === null && lateClaim === undefined;
      } catch (error) {
        if (!cancel) {
          await journaled;
          // The claim's answer was lost, not necessarily the claim: freed by its id, so the retry the 503 invites finds the key free.
          void this.keyWrites.release(client.id, held.key, held.claimId);
          throw new JournalUnavailableError(error);
        }
        this.logger.warn(
          `cancel ${call.request.id} passes without its idempotency record: ${(error as Error).message}`,
        );
      }
      if (holder) return this.clordIdHeld(call, held, holder, fingerprint, base, journaled);
      // A cancel whose first call under this key is still in flight (or was left so by a stopped instance) is sent again, not refused 409: a cancel is never blocked by a gateway rule, and may always be sent again.
      const cancelAgain = cancel && existing?.state === 'in_flight' && existing.fingerprint === fingerprint;
      if (existing && !cancelAgain) {
        await journaled;
        return this.replay(call, held, fingerprint, existing, base);
      }
    }

    // Written ahead: nothing is sent before the intent's record is committed (a cancel: or its wait is over).
    const journalError = late ? await Promise.race([journaled, late.promise]) : await journaled;
    late?.clear();
    if (journalError === LATE)
      this.logger.warn(
        `cancel ${call.request.id} passes before its record is written: the journal has not answered in ${CANCEL_JOURNAL_WAIT_MS} ms`,
      );
    else if (journalError !== undefined) {
      if (!cancel) {
        if (claimed && held) await this.keyWrites.release(client.id, held.key, held.claimId);
        throw new JournalUnavailableError(journalError);
      }
      this.logger.warn(`cancel ${call.request.id} passes unjournaled: ${(journalError as Error).message}`);
    }
    // A retail create or close-position is sent with its account's order channel held: a lost answer is resolved from what it shows.
    const release = FOUND_BY_TERMS.includes(call.operation)
      ? this.retailChannel.hold(
          call.account,
          marketOf(call.body),
          claimed && held ? callKey(client.id, held.key) : undefined,
        )
      : undefined;
    const sending = this.send(call, admitted, claimed ? held : undefined, base, creating, claimedAt);
    if (lateClaim && held) void this.settleLateClaim(lateClaim, client.id, held, sending);
    try {
      return await sending;
    } finally {
      release?.();
    }
  }

  /** What the claim of `held` would find, read without claiming: the key's record, or the call that sent one of an insert's own clordIds. */
  private async entered<A>(
    call: OrderCall<A>,
    clientId: string,
    held: HeldKey,
  ): Promise<{ existing: IdempotencyRecord | null; holder: IdempotencyRecord | null }> {
    // A gateway key is new to the database: nothing holds it.
    const key = held.source === 'gateway' ? undefined : held.key;
    if (call.account !== undefined && call.ownClordIds?.length)
      return this.store.keys.findOnce(
        { clientId, key, participant: call.account, team: call.team },
        call.ownClordIds,
        CREATING_OPERATIONS,
      );
    return { existing: key === undefined ? null : await this.store.keys.get(clientId, key), holder: null };
  }

  /**
   * An insert one of whose clordIds `holder`, another call of its team, sent before (this call's key was
   * not claimed; nothing is sent). The same client resending that call's body gets that call's outcome (a
   * resend under a new key, or with none after a keyed one); anything else is 409 CLORDID_IN_USE.
   */
  private async clordIdHeld<A>(
    call: OrderCall<A>,
    held: HeldKey,
    holder: IdempotencyRecord,
    fingerprint: string,
    base: JournalEntry,
    journaled?: Promise<unknown>,
  ): Promise<OrderAnswer> {
    // The intent's record first, when the call wrote one (a call refused by a risk check wrote none).
    await journaled;
    if (holder.clientId === base.clientId && holder.fingerprint === fingerprint)
      return this.replay(call, { key: holder.key, source: 'header', claimId: held.claimId }, fingerprint, holder, base);
    const refusal = new ClordIdInUseError(call.ownClordIds ?? []);
    this.refused(call, base, held, refusal, 'idempotency');
    throw refusal;
  }

  /**
   * A cancel sent before its claim was answered: once both are known, a claim it won holds the
   * cancel's answer for replay (or is freed when the send failed); a claim it lost or cannot tell is
   * left to its holder, or freed by its own id. Sending a cancel again under the key is harmless.
   */
  private async settleLateClaim(
    claiming: Promise<IdempotencyRecord | null>,
    clientId: string,
    held: HeldKey,
    sending: Promise<OrderAnswer>,
  ): Promise<void> {
    const [claim, answer] = await Promise.all([
      claiming.then(
        (existing) => (existing === null ? 'won' : 'held'),
        () => 'unknown' as const,
      ),
      sending.then(
        (reply) => reply,
        () => undefined,
      ),
    ]);
    if (claim === 'held') return;
    if (claim === 'won' && answer) await this.keyWrites.finish(clientId, held.key, answer.status, answer.text);
    else await this.keyWrites.release(clientId, held.key, held.claimId);
  }

  private async send<A>(
    call: OrderCall<A>,
    admitted: A,
    held: HeldKey | undefined,
    base: JournalEntry,
    creating: boolean,
    claimedAt: number,
  ): Promise<OrderAnswer> {
    const clientId = base.clientId!;
    // `sent`: each try that passed the budget, recorded as it leaves (queued ahead of its answer in the chain; the send never waits for it).
    const sent = (send: UpstreamSend) => {
      if (send.budgetClass !== 'read')
        void this.quietly(
          this.store.journal.appendSoon(
            ...perOrder(
              {
                ...base,
                kind: 'sent',
                data: {
                  requestId: call.request.id,
                  surface: send.surface,
                  method: send.method,
                  path: send.path,
                  attempt: send.attempt,
                },
              },
              call.clordIds,
              call.orderIds,
            ),
          ),
        );
    };
    // A cancel's answer waits for its records at most CANCEL_JOURNAL_WAIT_MS (they are written on after it; they never fail it).
    const recorded = (work: Promise<unknown>) =>
      isCancel(call.operation) ? atMost(work, CANCEL_JOURNAL_WAIT_MS) : work;
    try {
      const reply = await onUpstreamSend(sent, () =>
        held ? this.sentInTime(claimedAt, () => call.send(admitted)) : call.send(admitted),
      );
      const text = reply.text === '' ? '{}' : reply.text;
      const body = parsed(text);
      await recorded(
        Promise.all([
          held ? this.keyWrites.finish(clientId, held.key, reply.status, text) : undefined,
          this.record(call, {
            ...base,
            kind: 'answer',
            orderId: orderIdOf(body) ?? base.orderId,
            data: {
              requestId: call.request.id,
              operation: call.operation,
              givesOrder: givesOrder(call.operation),
              status: reply.status,
              body,
            },
          }),
        ]),
      );
      return {
        status: reply.status,
        text,
        headers: { ...(reply.decision ? rateLimitHeaders(reply.decision) : {}), 'content-type': JSON_CONTENT_TYPE },
      };
    } catch (thrown) {
      const error = toDomainError(thrown);
      const outcome = outcomeOf(error);
      if (outcome === 'ambiguous' && creating && held) {
        const reason = error.extensions.upstream !== undefined ? 'answered' : 'silent';
        await this.keyWrites.markUnknown(clientId, held.key, reason);
        await this.record(call, {
          ...base,
          kind: 'unknown',
          data: { requestId: call.request.id, code: error.code, reason },
        });
        this.unknown.wake();
        return pendingAnswer(call.clordIds, held.key);
      }
      const problem = JSON.stringify(problemOf(error, call.request.id));
      await recorded(
        (async () => {
          if (outcome === 'answered' && held)
            await this.keyWrites.finish(clientId, held.key, httpStatusOfProblem(problem), problem);
          else if (held) await this.keyWrites.release(clientId, held.key, held.claimId);
          await this.record(call, {
            ...base,
            kind: outcome === 'not-sent' ? 'refused' : 'answer',
            data: { requestId: call.request.id, operation: call.operation, code: error.code, outcome },
          });
        })(),
      );
      throw error;
    }
  }

  /**
   * A replace or a retail modify changes only orders its client was given (the journal's answers and
   * resolutions: provesOrder), or that no client was given (sent outside the gateway). On a participant or
   * retail account two clients share, one client's replace of the other's order was judged by the actor's
   * limits and counts, not the owner's: a probe grew another team's 10-lot to 1,000 past that team's
   * `maxOpenNotional` and `maxOrderQty`, and the owner's next order then passed too. A cancel may still
   * name any order of its participant (a cancel is never blocked by a gateway rule).
   */
  private async othersOrdersRefused<A>(call: OrderCall<A>, clientId: string): Promise<void> {
    if (!CHANGING_OPERATIONS.includes(call.operation) || !call.orderIds?.length) return;
    // Only an order booked to the call's own account: another account's is answered as an unknown id (by
    // the exchange's ownership check or the retail API's 404), which must not tell it apart.
    const origins = await Promise.all(
      call.orderIds.map((orderId) =>
        call.operation === 'retail.modify' ? this.origins.retail(orderId) : this.origins.exchange(orderId),
      ),
    );
    const orderIds = call.orderIds.filter((_, i) => origins[i]?.owner === call.account);
    if (orderIds.length === 0) return;
    const given = await this.store.journal.givenRecords(orderIds).catch((error: unknown) => {
      throw new JournalUnavailableError(error);
    });
    for (const orderId of orderIds) {
      const i = call.orderIds.indexOf(orderId);
      const givers = given.filter((record) => record.orderId === orderId).map((record) => record.clientId);
      if (givers.length === 0 || givers.includes(clientId)) continue;
      const field = call.operation === 'retail.modify' ? 'params.id' : `body.requests.${i}.orderId`;
      throw new ForbiddenError(
        `Order ${orderId.slice(0, 100)} (${field}) was placed by another client of ${call.account ?? 'this account'}: a replace or modify changes only this client's own orders, judged by its limits (a cancel may name any).`,
        { orderId, field },
      );
    }
  }

  /**
   * Runs `send` with each of its order-entering tries (not a read, not a cancel) refused, nothing sent,
   * once `sendWithinMs` have passed since the key was claimed: from `inFlightStaleMs` on, any instance
   * takes the record for a stopped instance's, marks it UNKNOWN and may prove it not placed (409
   * ORDER_NOT_PLACED) before a late send lands, and the client, told so, sends the order again. The margin
   * (a second, or half of a shorter `inFlightStaleMs`) covers the try's way from this check to the socket;
   * the record's age is counted by the database from after the claim was sent, so it is never older there.
   */
  private sentInTime<T>(claimedAt: number, send: () => Promise<T>): Promise<T> {
    return guardUpstreamSend((attempt) => {
      if (!entersOrders(attempt)) return;
      const waited = this.clock.now() - claimedAt;
      if (waited > this.sendWithinMs) throw new OrderSendTooLateError(Math.round(waited), this.sendWithinMs);
    }, send);
  }

  /** `journal.enabled: false` (a bench switch): the call is sent as it came, with neither idempotency record nor journal. */
  private async unrecorded<A>(call: OrderCall<A>): Promise<OrderAnswer> {
    const reply = await call.send(await admitOf(call));
    return {
      status: reply.status,
      text: reply.text === '' ? '{}' : reply.text,
      headers: { ...(reply.decision ? rateLimitHeaders(reply.decision) : {}), 'content-type': JSON_CONTENT_TYPE },
    };
  }

  private async replay<A>(
    call: OrderCall<A>,
    held: HeldKey,
    fingerprint: string,
    existing: IdempotencyRecord,
    base: JournalEntry,
  ): Promise<OrderAnswer> {
    if (existing.fingerprint !== fingerprint)
      // Without an Idempotency-Key the key is the insert's clordId: another order under it is the clordId's reuse.
      throw held.source === 'clordId'
        ? new ClordIdInUseError(call.ownClordIds ?? [])
        : new IdempotencyKeyReusedError(held.key);
    const stale = this.clock.wallNow() - existing.updatedAt.getTime() > this.staleMs;
    if (existing.state === 'in_flight' && !stale) throw new IdempotencyInFlightError(held.key, 1);
    await this.record(call, {
      ...base,
      kind: 'replayed',
      clordId: existing.clordIds.length === 1 ? existing.clordIds[0] : undefined,
      data: { requestId: call.request.id, state: existing.state },
    });
    return existing.state === 'done' ? replayedAnswer(existing) : pendingAnswer(existing.clordIds, held.key, true);
  }

  /**
   * A risk refusal on the record: one `refused` record (a batch's too: nothing of it was sent), appended off the latency path (the store
   * batches it; no key is claimed, nothing waits). Refusals of the client's pace or state rather than
   * of its order (throttle, breaker, states unread) are counted in metrics only: a runaway loop must
   * not be able to flood the journal.
   */
  private refused<A>(
    call: OrderCall<A>,
    base: JournalEntry,
    held: HeldKey | undefined,
    refusal: unknown,
    stage: 'risk' | 'idempotency' = 'risk',
  ): void {
    const code = toDomainError(refusal).code;
    if (PACE_REFUSALS.has(code)) return;
    void this.quietly(
      this.store.journal.append({
        ...base,
        kind: 'refused',
        data: {
          operation: call.operation,
          requestId: call.request.id,
          keyId: this.keyIds.get(base.clientId!),
          address: call.request.ip,
          account: call.account,
          clordIds: call.clordIds,
          idempotencyKey: held?.source === 'gateway' ? undefined : held?.key,
          body: withoutSecrets(call.body),
          code,
          stage,
        },
      }),
    );
  }

  /** Records after the send never fail the call: the answer stands; the gap is logged (and the chain stays whole). A batch's: one per order (perOrder). */
  private async record<A>(call: OrderCall<A>, entry: JournalEntry): Promise<void> {
    await this.quietly(this.store.journal.append(...perOrder(entry, call.clordIds, call.orderIds)));
  }

  private async quietly(work: Promise<unknown>): Promise<void> {
    try {
      await work;
    } catch (error) {
      this.logger.error(`order journal write failed after the send: ${(error as Error).message}`);
    }
  }
}

/**
 * The most a cancel waits for its idempotency claim and its intent's record: a cancel passes whatever
 * the journal does (README "What each outage costs"), so a stalled database, whose every statement
 * waits for a connection and then for its answer (each up to `statementTimeoutMs`), must not hold it.
 * A healthy database answers in a few milliseconds, under load in tens.
 */
const CANCEL_JOURNAL_WAIT_MS = 250;

const LATE: unique symbol = Symbol('late');

/** How long before its record turns stale an order call must have left (see OrderSafety.sentInTime). */
const SEND_MARGIN_MS = 1_000;

/** A promise of LATE after `ms` (clear() once it is not needed: the timer goes). */
function lateAfter(ms: number): { promise: Promise<typeof LATE>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms);
    timer.unref();
  });
  return { promise, clear: () => clearTimeout(timer) };
}

/** `work`, or what is left of it after `ms` (it goes on: it must never reject). */
async function atMost(work: Promise<unknown>, ms: number): Promise<void> {
  const late = lateAfter(ms);
  try {
    await Promise.race([work, late.promise]);
  } finally {
    late.clear();
  }
}

/** Refusals of the client's pace or of a state the gateway cannot read, not of its order (a runaway loop or an outage repeats them): counted in metrics, not journaled one by one (see OrderSafety.refused). */
const PACE_REFUSALS: ReadonlySet<string> = new Set([
  ErrorCode.RISK_THROTTLED,
  ErrorCode.RISK_BREAKER_OPEN,
  ErrorCode.TRADING_STATE_UNKNOWN,
  ErrorCode.RISK_POSITION_UNKNOWN,
  ErrorCode.RISK_EVENT_UNKNOWN,
]);

/** The call's checks; a call without any has `A` = undefined (OrderCall's default), so undefined is what its send takes. */
function admitOf<A>(call: OrderCall<A>): Promise<A> {
  return call.admit ? call.admit() : Promise.resolve(undefined as A);
}

function marketOf(body: unknown): string | undefined {
  const market = (body as { marketSlug?: unknown } | null)?.marketSlug;
  return typeof market === 'string' ? market : undefined;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The order id of an insert's parsed answer (`{orderId}`, a retail create's `{id}`), for the journal's index. */
function orderIdOf(answer: unknown): string | undefined {
  if (answer === null || typeof answer !== 'object') return undefined;
  const { orderId, id: retailId } = answer as { orderId?: unknown; id?: unknown };
  const id = orderId ?? retailId;
  return typeof id === 'string' ? id : undefined;
}

/** `sha256:` and the first 12 hex digits of the key's digest: names the key (a rotation changes it), reveals nothing of it. */
const keyIdOf = (keyHash: string): string => keyHash.slice(0, 'sha256:'.length + 12);

function httpStatusOfProblem(problem: string): number {
  return (JSON.parse(problem) as { status: number }).status;
}
