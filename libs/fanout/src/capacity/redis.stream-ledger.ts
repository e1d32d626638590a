import { Logger } from '@nestjs/common';
import type { RedisClient } from '@lib/core';

import { StreamCapacityUnavailableError } from '../fanout.error.js';
import { LedgerScripts, type PoolKeys, poolKeys } from './ledger.scripts.js';
import { LocalHoldings } from './local.holdings.js';
import {
  type CapacitySettings,
  type ClaimOutcome,
  type PoolUsage,
  type StreamHolder,
  type StreamLedger,
  usageOf,
} from './stream-capacity.types.js';

/**
 * The firm's streams counted cluster-wide: every instance records what it holds in Redis with an
 * expiry it keeps renewing, so a crashed instance's holdings lapse after `holdingTtlMs`. A claim that
 * needs Redis while Redis is unreachable is refused: a cap is never exceeded because Redis is down.
 * Claims this instance can answer alone (the client already holds the topic here) need no Redis.
 * A holding Redis lost (a release racing a claim of the same topic, an outage past the expiry) is
 * written back by the next renewal, so the count lags reality by at most `renewEveryMs`. When Redis lost
 * the whole count (restarted empty, flushed, failed over to an empty replica), its generation is gone
 * too: the first instance to look (a claim, or its renewal) that held one marks the loss, and for a
 * holding's lifetime (`holdingTtlMs`) no claim that needs the count is granted (refused as uncountable,
 * as while Redis is down), so no cap is passed on a count that reads short.
 */
export class RedisStreamLedger implements StreamLedger {
  private readonly logger = new Logger('StreamLedger');
  private readonly holdings = new LocalHoldings();
  private readonly scripts: LedgerScripts;
  private readonly keys: Map<string, PoolKeys>;
  private readonly timer: NodeJS.Timeout;

  constructor(
    redis: RedisClient,
    private readonly settings: CapacitySettings,
    keyPrefix: string,
    instanceId: string,
  ) {
    // After Redis lost the count, no claim is decided on it for a holding's lifetime (LedgerScripts).
    this.scripts = new LedgerScripts(redis, instanceId, settings.holdingTtlMs);
    this.keys = new Map(Object.keys(settings.pools).map((pool) => [pool, poolKeys(keyPrefix, pool)]));
    this.timer = setInterval(() => void this.renew(), settings.renewEveryMs).unref();
  }

  async claim(pool: string, kind: string, topic: string, holder: StreamHolder): Promise<ClaimOutcome> {
    const limits = this.settings.pools[pool];
    const keys = this.keys.get(pool);
    if (!limits || !keys) return { granted: true };
    const held = { kind, team: holder.team };
    if (this.holdings.holds(pool, topic, holder.client)) {
      this.holdings.add(pool, topic, held, holder.client);
      return { granted: true };
    }
    let outcome: ClaimOutcome;
    try {
      outcome = await this.scripts.claim(keys, limits, topic, held, holder.client);
    } catch (error) {
      this.logger.warn(`Stream capacity could not be counted for ${topic}: ${String(error)}`);
      throw new StreamCapacityUnavailableError(topic);
    }
    if (outcome.granted) this.holdings.add(pool, topic, held, holder.client);
    return outcome;
  }

  leave(pool: string, topic: string, client: string): void {
    const keys = this.keys.get(pool);
    if (!keys || !this.holdings.leave(pool, topic, client)) return;
    const team = this.holdings.teamOf(pool, client);
    const teamLeft = team !== undefined && !this.holdings.teamsHolding(pool, topic).includes(team) ? team : undefined;
    // A failed removal lapses with its expiry. The charge follows the holders on Redis's next look (live_topics).
    this.scripts.leave(keys, topic, client, teamLeft).catch(() => undefined);
  }

  release(pool: string, topic: string): void {
    const keys = this.keys.get(pool);
    if (keys && this.holdings.release(pool, topic)) this.scripts.release(keys, topic).catch(() => undefined);
  }

  async usage(): Promise<PoolUsage[]> {
    return Promise.all(
      Object.entries(this.settings.pools).map(async ([pool, limits]) =>
        usageOf(pool, limits, await this.scripts.view(this.keys.get(pool) as PoolKeys)),
      ),
    );
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const releases = [...this.keys].flatMap(([pool, keys]) => [
      ...[...this.holdings.topicsOf(pool).keys()].map((topic) => this.scripts.release(keys, topic)),
      ...this.holdings
        .clientsOf(pool)
        .flatMap(([client, topics]) =>
          topics.map((topic) => this.scripts.leave(keys, topic, client, this.holdings.teamOf(pool, client))),
        ),
    ]);
    await Promise.allSettled(releases);
  }

  /** Writes this instance's holdings back with a fresh expiry, and looks at the count's generation (a loss is seen within a renewal). */
  private async renew(): Promise<void> {
    await Promise.allSettled(
      [...this.keys].map(async ([pool, keys]) => {
        await this.scripts.renew(
          keys,
          [...this.holdings.topicsOf(pool)],
          this.holdings.interestsOf(pool),
          this.holdings.clientsOf(pool),
        );
        await this.scripts.lookAtGeneration(keys);
      }),
    );
  }
}
