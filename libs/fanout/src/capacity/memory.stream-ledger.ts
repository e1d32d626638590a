import { LocalHoldings } from './local.holdings.js';
import {
  type ClaimOutcome,
  type PoolLimits,
  type PoolUsage,
  type StreamHolder,
  type StreamLedger,
  decideClaim,
  usageOf,
} from './stream-capacity.types.js';

/** Single-instance mode: this instance's holdings are the whole firm's. */
export class MemoryStreamLedger implements StreamLedger {
  private readonly holdings = new LocalHoldings();

  constructor(private readonly pools: Record<string, PoolLimits>) {}

  claim(pool: string, kind: string, topic: string, holder: StreamHolder): Promise<ClaimOutcome> {
    const limits = this.pools[pool];
    if (!limits) return Promise.resolve({ granted: true });
    const outcome = decideClaim(
      limits,
      this.holdings.topicsOf(pool),
      this.holdings.clientTopics(pool, holder.client),
      topic,
      holder.team,
      holder.client,
    );
    if (outcome.granted) {
      this.holdings.add(pool, topic, { kind, team: holder.team }, holder.client);
      // A lingering topic (no holder left) stays charged to the team that opened it; a client of another
      // team joining it now holds it, so the charge moves to that team, as the Redis ledger does on its next look.
      this.holdings.recharge(pool, topic);
    }
    return Promise.resolve(outcome);
  }

  leave(pool: string, topic: string, client: string): void {
    if (this.holdings.leave(pool, topic, client)) this.holdings.recharge(pool, topic);
  }

  release(pool: string, topic: string): void {
    this.holdings.release(pool, topic);
  }

  usage(): Promise<PoolUsage[]> {
    return Promise.resolve(
      Object.entries(this.pools).map(([pool, limits]) => usageOf(pool, limits, this.holdings.topicsOf(pool).values())),
    );
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
