import { Logger } from '@nestjs/common';
import type { IdempotencyStore } from '@lib/journal';

/** How often a release the database refused is tried again. */
const RETRY_MS = 1_000;
/** The most releases held for a retry at once (one per call refused while the journal was away): a bound on memory. */
const MAX_HELD = 10_000;

interface Held {
  clientId: string;
  key: string;
  claimId: string;
}

/**
 * Frees the keys of calls that claimed them and then sent nothing (the journal's write failed, or the
 * budget refused the send), until the database takes the release. A key left claimed would otherwise
 * stay `in_flight` though nothing was sent: the client's retry with it, which its 503 invites, would
 * get 409, then (once stale) 202 PENDING for an order that no search will ever find, until the key's
 * lifetime ends. Each release names the call's own claim, so a retry's later claim of the key is never
 * freed, and a claim whose answer was lost (written or not) is freed if it was written.
 */
export class NotSentReleases {
  private readonly logger = new Logger('OrderSafety');
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly keys: () => IdempotencyStore) {}

  /** Frees the claim now; when the database refuses, again every second until it takes it. */
  async release(clientId: string, key: string, claimId: string): Promise<void> {
    try {
      await this.keys().releaseClaim(clientId, key, claimId);
    } catch (error) {
      this.hold({ clientId, key, claimId }, error);
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private hold(release: Held, error: unknown): void {
    if (this.held.size >= MAX_HELD) {
      this.logger.error(
        `idempotency key ${release.key} of client ${release.clientId} stays claimed though nothing was sent (${MAX_HELD} releases already wait for the journal): its retry is answered PENDING`,
      );
      return;
    }
    if (this.held.size === 0)
      this.logger.warn(
        `idempotency keys of calls that sent nothing are freed once the journal answers again: ${(error as Error).message}`,
      );
    this.held.set(`${release.clientId}\u0000${release.key}\u0000${release.claimId}`, release);
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => void this.retry(), RETRY_MS);
    this.timer.unref();
  }

  private async retry(): Promise<void> {
    this.timer = undefined;
    for (const [id, release] of this.held) {
      if (this.stopped) return;
      try {
        await this.keys().releaseClaim(release.clientId, release.key, release.claimId);
        this.held.delete(id);
      } catch {
        break; // still away: the rest wait for the next try
      }
    }
    if (this.held.size > 0) this.schedule();
  }
}
