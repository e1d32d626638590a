import { Logger } from '@nestjs/common';
import { type Clock, systemClock } from '@lib/core';
import type { IdempotencyStore } from '@lib/journal';

/** How often a key write the database refused is tried again. */
const RETRY_MS = 1_000;
/** The most writes held for a retry at once (one per call that met the journal away): a bound on memory. */
const MAX_HELD = 10_000;
/**
 * A finish still refused this long after its call answered is given up (logged): by then the call has long
 * been taken for one a stopped instance left (`journal.inFlightStaleMs`) and its outcome found by the
 * resolver, and the key's lifetime (`journal.keyTtlHours`) stays far off, so the write can never land on a
 * later claim of the same key.
 */
const FINISH_KEPT_MS = 10 * 60_000;

type Owed =
  | { kind: 'release'; clientId: string; key: string; claimId: string }
  | { kind: 'unknown'; clientId: string; key: string; reason: string }
  | { kind: 'finish'; clientId: string; key: string; status: number; body: string; since: number };

/**
 * The idempotency writes that follow a call, held until the database takes them.
 *
 * - A release frees the key of a call that claimed it and then sent nothing (the journal's write failed,
 *   or the budget refused the send). A key left claimed would otherwise stay `in_flight` though nothing
 *   was sent: the client's retry with it, which its 503 invites, would get 409, then (once stale) 202
 *   PENDING for an order that no search will ever find, until the key's lifetime ends. Each release names
 *   the call's own claim, so a retry's later claim of the key is never freed, and a claim whose answer was
 *   lost (written or not) is freed if it was written.
 * - A finish stores a sent call's answer for replay. One the database refused (a statement timeout on a
 *   busy machine) left the call `in_flight` though it had answered: its key's retry got 409 and then
 *   PENDING, the resolver spent order searches on it, and every halt-and-cancel of its client waited for
 *   it the whole `journal.inFlightStaleMs` (the one cause found for a CI run whose dead-man's switch made
 *   its cancels and did not report within 20 s).
 * - An UNKNOWN mark says a sent call's outcome is not known (its answer was lost): refused, the call stayed
 *   `in_flight` the same way, its retry 409 and its client's halts waiting, until `inFlightStaleMs`. Once
 *   written, the resolver is woken (`onUnknown`) to find the order.
 */
export class KeyWritesOwed {
  private readonly logger = new Logger('OrderSafety');
  private readonly held = new Map<string, Owed>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly keys: () => IdempotencyStore,
    private readonly onUnknown: () => void,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Frees the claim now; when the database refuses, again every second until it takes it. */
  async release(clientId: string, key: string, claimId: string): Promise<void> {
    await this.write({ kind: 'release', clientId, key, claimId });
  }

  /** Stores the call's answer now; when the database refuses, again every second until it takes it. Never throws. */
  async finish(clientId: string, key: string, status: number, body: string): Promise<void> {
    await this.write({ kind: 'finish', clientId, key, status, body, since: this.clock.now() });
  }

  /** Marks the sent call UNKNOWN now; when the database refuses, again every second until it takes it. Never throws. */
  async markUnknown(clientId: string, key: string, reason: string): Promise<void> {
    await this.write({ kind: 'unknown', clientId, key, reason });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async write(owed: Owed): Promise<void> {
    try {
      await this.apply(owed);
    } catch (error) {
      this.hold(owed, error);
    }
  }

  private async apply(owed: Owed): Promise<void> {
    if (owed.kind === 'release') return this.keys().releaseClaim(owed.clientId, owed.key, owed.claimId);
    if (owed.kind === 'finish') return this.keys().finish(owed.clientId, owed.key, owed.status, owed.body);
    // A call that finished meanwhile keeps its answer (markUnknown leaves it): nothing to resolve then.
    if (await this.keys().markUnknown(owed.clientId, owed.key, owed.reason)) this.onUnknown();
  }

  private hold(owed: Owed, error: unknown): void {
    const what = {
      release: 'stays claimed though nothing was sent',
      finish: 'stays in flight though it answered',
      unknown: 'stays in flight though its answer was lost',
    }[owed.kind];
    if (this.held.size >= MAX_HELD) {
      this.logger.error(
        `idempotency key ${owed.key} of client ${owed.clientId} ${what} (${MAX_HELD} writes already wait for the journal): its retry is answered PENDING`,
      );
      return;
    }
    if (this.held.size === 0)
      this.logger.warn(
        `idempotency keys of answered calls, of calls whose answer was lost and of calls that sent nothing are written once the journal answers again: ${(error as Error).message}`,
      );
    this.held.set(
      `${owed.kind}\u0000${owed.clientId}\u0000${owed.key}\u0000${owed.kind === 'release' ? owed.claimId : ''}`,
      owed,
    );
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => void this.retry(), RETRY_MS);
    this.timer.unref();
  }

  private async retry(): Promise<void> {
    this.timer = undefined;
    for (const [id, owed] of this.held) {
      if (this.stopped) return;
      if (owed.kind === 'finish' && this.clock.now() - owed.since > FINISH_KEPT_MS) {
        this.held.delete(id);
        this.logger.error(
          `idempotency key ${owed.key} of client ${owed.clientId}: its answer was not written in ${FINISH_KEPT_MS / 60_000} minutes; the resolver's outcome stands`,
        );
        continue;
      }
      try {
        await this.apply(owed);
        this.held.delete(id);
      } catch {
        break; // still away: the rest wait for the next try
      }
    }
    if (this.held.size > 0) this.schedule();
  }
}
