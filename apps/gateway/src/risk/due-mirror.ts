/** One mirrored deadline: when, on this process's steady clock; the period that set it; the instant Redis holds. */
interface Mirrored {
  at: number;
  periodMs: number;
  score: string;
  /** When this instance mirrored it (steady clock). */
  setAt: number;
}

/** What a read of the whole due set returned: Redis's clock then, and each client's instant and period. */
export interface DueListing {
  redisNow: number;
  entries: { clientId: string; score: string; periodMs: number }[];
}

/**
 * This process's copy of a due set's deadlines (DueClients), so that a brake still fires while Redis does
 * not answer: the set lives only in Redis, and a bot that dies during an outage would otherwise keep its
 * orders resting until Redis is back. Filled by what this instance schedules and by a read of the whole
 * set every second (Redis instants turned into steady-clock ones with the read's Redis clock, taken as of
 * the answer's arrival: never earlier than Redis meant).
 *
 * While Redis is out a deadline fires at max(its mirrored instant, the outage's start + its period), the
 * start being when this instance's first poll failed (after the command timeout): a
 * re-arm made elsewhere after the last read (it reached Redis no later than the outage began, as far as
 * this instance can tell) moved it at most one period past the outage's start, so a mirror never fires a
 * switch earlier than Redis would have. The price: up to one period late, and an instance cut off from a
 * Redis the others still reach fires the switches of clients that re-arm elsewhere (cancels only). A
 * period not in Redis (armed by an instance of an earlier release) counts as 0: the bare instant.
 */
export class DueMirror {
  private readonly mirrored = new Map<string, Mirrored>();
  /** Clients fired from the mirror during the outage, with the Redis instant fired for. */
  private readonly firedAlone = new Map<string, string>();
  /** Steady instant the current outage was first seen, or null while Redis answers. */
  private outageSince: number | null = null;

  constructor(private readonly now: () => number) {}

  /** Scheduled here `inMs` from now (answered or not: a re-arm that may have landed is never fired early). */
  scheduled(clientId: string, inMs: number, score: string | undefined): void {
    const held = this.mirrored.get(clientId);
    const at = Math.max(this.now() + inMs, score === undefined ? (held?.at ?? 0) : 0);
    this.mirrored.set(clientId, { at, periodMs: inMs, score: score ?? held?.score ?? '', setAt: this.now() });
  }

  /** No longer due (disarmed, reconnected, or taken from Redis by this instance). */
  forget(clientId: string): void {
    this.mirrored.delete(clientId);
  }

  /**
   * A read of the whole set, asked for at `askedAt` and answered at `answeredAt` (steady): the mirror
   * becomes what Redis held, except what this instance scheduled since the read was asked for. Its answer
   * may be handled after a schedule that reached Redis later (their replies come in one packet on a busy
   * machine, and the read's takes more steps to reach its caller): replacing that too lost a grace handed
   * to Redis just before Redis died, and it never fired (a CI run on Node 24).
   */
  replace(listing: DueListing, answeredAt: number, askedAt = answeredAt): void {
    const since = [...this.mirrored].filter(([, mirrored]) => mirrored.setAt >= askedAt);
    this.mirrored.clear();
    for (const { clientId, score, periodMs } of listing.entries)
      this.mirrored.set(clientId, {
        at: answeredAt + Number(score) - listing.redisNow,
        periodMs,
        score,
        setAt: answeredAt,
      });
    for (const [clientId, mirrored] of since) this.mirrored.set(clientId, mirrored);
  }

  /** The clients fired from the mirror during the outage whose Redis instant is known, each with it. */
  firedMeanwhile(): [string, string][] {
    return [...this.firedAlone].filter(([, score]) => score !== '');
  }

  /** Redis answered (and the clients fired meanwhile were settled there): the outage is over; true if there was one. */
  answered(): boolean {
    const wasOut = this.outageSince !== null;
    this.outageSince = null;
    this.firedAlone.clear();
    return wasOut;
  }

  /** Redis did not answer: the clients whose conservative deadline lapsed, taken off the mirror; true when the outage just began. */
  unanswered(): { lapsed: string[]; began: boolean } {
    const now = this.now();
    const began = this.outageSince === null;
    const since = (this.outageSince ??= now);
    const lapsed: string[] = [];
    for (const [clientId, { at, periodMs, score }] of this.mirrored) {
      if (Math.max(at, since + periodMs) > now) continue;
      this.mirrored.delete(clientId);
      this.firedAlone.set(clientId, score);
      lapsed.push(clientId);
    }
    return { lapsed, began };
  }

  /** A firing from the mirror failed: tried again after `retryMs`. */
  retry(clientId: string, retryMs: number): void {
    const score = this.firedAlone.get(clientId) ?? '';
    this.firedAlone.delete(clientId);
    this.mirrored.set(clientId, { at: this.now() + retryMs, periodMs: 0, score, setAt: this.now() });
  }
}
