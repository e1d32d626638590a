import { createHash, randomUUID } from 'node:crypto';

import { Inject, Injectable, Logger } from '@nestjs/common';
import { GATEWAY_CONFIG, type GatewayConfig, problemOf, toDomainError } from '@lib/core';
import { type IdempotencyRecord, JOURNAL_DATABASE, type JournalDatabase, type JournalEntry, canonicalJson } from '@lib/journal';
import { rateLimitHeaders } from '@lib/ratelimit';

import { clientOf } from '../common/auth.decorators.js';
import { idempotencyKeyOf } from './idempotency-key.js';
import { JSON_CONTENT_TYPE, pendingAnswer, replayedAnswer } from './order-answers.js';
import { CREATING_OPERATIONS, KEPT_WHEN_AMBIGUOUS, type OrderAnswer, type OrderCall, isCancel } from './order-call.js';
import { outcomeOf } from './order-outcome.js';
import { IdempotencyInFlightError, IdempotencyKeyReusedError, JournalUnavailableError } from './order-safety.errors.js';
import { RejectBreaker } from '../risk/reject-breaker.service.js';
import { withoutSecrets } from './redact-secrets.js';
import { UnknownOrders } from './unknown-orders.service.js';

/** The key a call holds in the idempotency records, with how it was named. */
interface HeldKey {
  key: string;
  source: 'header' | 'clordId' | 'gateway';
}

/**
 * Steps 2 and 6-7 of the order path (architecture.md "Order safety"): the Idempotency-Key (replay,
 * 409 in flight, 422 on another body), the journal's record of the intent written before the send
 * (refused 503 when it cannot be written; cancels pass), then the send, the answer recorded and kept
 * for replay, and an ambiguous outcome of an insert turned into UNKNOWN: a 202, resolved by UnknownOrders.
 */
@Injectable()
export class OrderSafety {
  private readonly logger = new Logger('OrderSafety');
  private readonly staleMs: number;
  private readonly enabled: boolean;

  constructor(
    @Inject(JOURNAL_DATABASE) private readonly store: JournalDatabase,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly unknown: UnknownOrders,
    private readonly breaker: RejectBreaker,
  ) {
    this.staleMs = config.journal.inFlightStaleMs;
    this.enabled = config.journal.enabled;
  }

  async run(order: OrderCall): Promise<OrderAnswer> {
    // The reject breaker counts the upstream rejects this call meets (issue 26).
    const call = this.breaker.watched(order);
    if (!this.enabled) return this.unrecorded(call);
    const client = clientOf(call.request);
    const cancel = isCancel(call.operation);
    const creating = CREATING_OPERATIONS.includes(call.operation);
    const header = idempotencyKeyOf(call.request);
    // An order-creating call always holds a key (the client's, its clordId, or one of the gateway's) so that an UNKNOWN outcome has a record to resolve.
    const held: HeldKey | undefined = header !== undefined ? { key: header, source: 'header' } : call.implicitKey !== undefined ? { key: call.implicitKey, source: 'clordId' } : creating ? { key: `gateway:${randomUUID()}`, source: 'gateway' } : undefined;
    const fingerprint = createHash('sha256').update(canonicalJson({ operation: call.operation, account: call.account, body: call.body })).digest('hex');
    const base: JournalEntry = { kind: 'received', clientId: client.id, team: call.team, clordId: call.clordIds.length === 1 ? call.clordIds[0] : undefined, orderId: call.orderIds?.length === 1 ? call.orderIds[0] : undefined };

    let claimed = false;
    if (held) {
      let existing: IdempotencyRecord | null = null;
      try {
        existing = await this.store.keys.claim({ clientId: client.id, key: held.key, fingerprint, operation: call.operation, clordIds: call.clordIds, participant: call.account, team: call.team });
        claimed = existing === null;
      } catch (error) {
        if (!cancel) throw new JournalUnavailableError(error);
        this.logger.warn(`cancel ${call.request.id} passes without its idempotency record: ${(error as Error).message}`);
      }
      if (existing) return this.replay(call, held, fingerprint, existing, base);
    }

    try {
      await this.store.journal.append({
        ...base,
        data: {
          operation: call.operation,
          requestId: call.request.id,
          address: call.request.ip,
          account: call.account,
          clordIds: call.clordIds,
          idempotencyKey: held?.source === 'gateway' ? undefined : held?.key,
          body: withoutSecrets(call.body),
        },
      });
    } catch (error) {
      if (!cancel) {
        if (claimed && held) await this.store.keys.release(client.id, held.key).catch(() => undefined);
        throw new JournalUnavailableError(error);
      }
      this.logger.warn(`cancel ${call.request.id} passes unjournaled: ${(error as Error).message}`);
    }
    return this.send(call, claimed ? held : undefined, base, creating);
  }

  private async send(call: OrderCall, held: HeldKey | undefined, base: JournalEntry, creating: boolean): Promise<OrderAnswer> {
    const clientId = base.clientId!;
    try {
      const reply = await call.send();
      const text = reply.text === '' ? '{}' : reply.text;
      if (held) await this.quietly(this.store.keys.finish(clientId, held.key, reply.status, text));
      await this.record({ ...base, kind: 'answer', orderId: orderIdOf(text) ?? base.orderId, data: { requestId: call.request.id, status: reply.status, body: parsed(text) } });
      return { status: reply.status, text, headers: { ...(reply.decision ? rateLimitHeaders(reply.decision) : {}), 'content-type': JSON_CONTENT_TYPE } };
    } catch (thrown) {
      const error = toDomainError(thrown);
      const outcome = outcomeOf(error);
      if (outcome === 'ambiguous' && creating && held) {
        const reason = error.extensions.upstream !== undefined ? 'answered' : 'silent';
        await this.quietly(this.store.keys.markUnknown(clientId, held.key, reason));
        await this.record({ ...base, kind: 'unknown', data: { requestId: call.request.id, code: error.code, reason } });
        this.unknown.wake();
        return pendingAnswer(call.clordIds);
      }
      const problem = JSON.stringify(problemOf(error, call.request.id));
      const kept = outcome === 'answered' || (outcome === 'ambiguous' && KEPT_WHEN_AMBIGUOUS.includes(call.operation));
      if (kept && held) await this.quietly(this.store.keys.finish(clientId, held.key, httpStatusOfProblem(problem), problem));
      else if (held) await this.quietly(this.store.keys.release(clientId, held.key));
      await this.record({ ...base, kind: outcome === 'not-sent' ? 'refused' : 'answer', data: { requestId: call.request.id, code: error.code, outcome } });
      throw error;
    }
  }

  /** `journal.enabled: false` (a bench switch): the call is sent as it came, with neither idempotency record nor journal. */
  private async unrecorded(call: OrderCall): Promise<OrderAnswer> {
    const reply = await call.send();
    return { status: reply.status, text: reply.text === '' ? '{}' : reply.text, headers: { ...(reply.decision ? rateLimitHeaders(reply.decision) : {}), 'content-type': JSON_CONTENT_TYPE } };
  }

  private async replay(call: OrderCall, held: HeldKey, fingerprint: string, existing: IdempotencyRecord, base: JournalEntry): Promise<OrderAnswer> {
    if (existing.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError(held.key);
    const stale = Date.now() - existing.updatedAt.getTime() > this.staleMs;
    if (existing.state === 'in_flight' && !stale) throw new IdempotencyInFlightError(held.key, 1);
    await this.record({ ...base, kind: 'replayed', clordId: existing.clordIds.length === 1 ? existing.clordIds[0] : undefined, data: { requestId: call.request.id, state: existing.state } });
    return existing.state === 'done' ? replayedAnswer(existing) : pendingAnswer(existing.clordIds, true);
  }

  /** Records after the send never fail the call: the answer stands; the gap is logged (and the chain stays whole). */
  private async record(entry: JournalEntry): Promise<void> {
    await this.quietly(this.store.journal.append(entry));
  }

  private async quietly(work: Promise<unknown>): Promise<void> {
    try {
      await work;
    } catch (error) {
      this.logger.error(`order journal write failed after the send: ${(error as Error).message}`);
    }
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The order id of an insert's answer (`{orderId}`), for the journal's index. */
function orderIdOf(text: string): string | undefined {
  const body = parsed(text) as { orderId?: unknown } | null;
  return body !== null && typeof body === 'object' && typeof body.orderId === 'string' ? body.orderId : undefined;
}

function httpStatusOfProblem(problem: string): number {
  return (JSON.parse(problem) as { status: number }).status;
}
