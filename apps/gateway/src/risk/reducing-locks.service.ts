import { createHash, randomUUID } from 'node:crypto';

import { Inject, Injectable } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, LuaScript, REDIS, type RedisClient } from '@lib/core';

import type { GatewayConfig } from '../config/gateway-config.schema.js';
import { outcomeOf } from '../orders/order-outcome.js';
import type { PositionOf } from './risk-gate.service.js';

/** A stopped instance's lock lapses after this long: longer than any order call's send and answer. */
const LOCK_MS = 30_000;
/** How long an order waits for another reducing order of its holder in its market before it is refused. */
const WAIT_MS = 3_000;
const POLL_MS = 25;
/**
 * After an answer that may not be the order's last word (a timeout, a reset, a 5xx after the send), the lock
 * is kept while the exchange may still place it: it processes an order within its 5 s latency stopgap or
 * rejects it, so the next order's read of the position and open orders then shows this one.
 */
const UNSURE_HOLD_MS = 6_000;

/** How long a market's generation (the last release's token) is kept: far longer than any order call. */
const GENERATION_MS = 3_600_000;

/** KEYS: the lock, the generation. ARGV: the holder's token, GENERATION_MS. Frees the lock if still held by the token, and marks a release. */
const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return 1
`);

/** A position read made for an order's first judgement, and each market's generation read before it. */
export interface Reading {
  readonly positionOf: PositionOf;
  /** The generation of the market read first, from before the position read (a later market's is not known to be). */
  readonly seen: ReadonlyMap<string, string>;
  /** When it was asked for first (steady clock). */
  readonly at: () => number | undefined;
}

/**
 * Under a reduce-only state an order passes only if it reduces its holder's position, judged against the
 * position and the open orders read from the upstream. Two such orders judged at once read the same
 * position and both pass: two sells of a long 10, each of 10, would leave the holder short 10. So the
 * order is judged again right before its send while it holds its holder's market (participant or retail
 * account, and market), across every instance (Redis: SET NX PX; this process alone without Redis), until
 * its answer shows what it did; the next reducing order there waits for it, then reads a position that
 * counts it. Only reducing orders judged by their position under a reduce-only state take a lock. Each
 * release marks the market's generation: an order whose first read came after the last release (the
 * generation it saw is still the market's) is judged again on that read, without reading twice.
 */
@Injectable()
export class ReducingLocks {
  private readonly prefix: string;
  /** Without Redis: this process's locks, by key (the token, when it lapses), and the generations. */
  private readonly local = new Map<string, { token: string; until: number }>();
  private readonly generations = new Map<string, string>();

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) private readonly redis: RedisClient | null,
    private readonly clock: Clock,
  ) {
    this.prefix = `${config.redis?.keyPrefix ?? ''}risk:reducing:`;
  }

  /** `positionOf`, noting the generation of the first market it is asked for before it reads. */
  reading(holder: string, positionOf: PositionOf): Reading {
    const seen = new Map<string, string>();
    let at: number | undefined;
    return {
      seen,
      at: () => at,
      positionOf: async (market) => {
        if (at === undefined) {
          at = this.clock.now();
          seen.set(market, await this.generation(holder, market));
        }
        return positionOf(market);
      },
    };
  }

  /**
   * Runs `work` holding every (holder, market) lock, taken in one order so two batches never wait on each
   * other; refused 503 `RISK_POSITION_UNKNOWN` (nothing sent) when a lock is not had within WAIT_MS or
   * Redis cannot say. `work` is told whether `reading` is stale (a reducing order of the holder was
   * released in one of the markets since it was made). Released once `work` settles; kept UNSURE_HOLD_MS
   * more after an ambiguous outcome.
   */
  async holding<T>(
    holder: string,
    markets: readonly string[],
    path: string,
    reading: Reading | undefined,
    work: (stale: boolean) => Promise<T>,
  ): Promise<T> {
    const names = [...new Set(markets)].sort();
    const keys = names.map((market) => this.keysOf(holder, market));
    const token = randomUUID();
    const taken: (typeof keys)[number][] = [];
    const readAt = reading?.at();
    let stale = readAt === undefined || this.clock.now() - readAt > LOCK_MS / 2;
    try {
      for (const [i, key] of keys.entries()) {
        await this.take(key.lock, token, holder, path);
        taken.push(key);
        if (!stale) stale = reading!.seen.get(names[i]!) !== (await this.generationOf(key.generation, holder, path));
      }
    } catch (error) {
      void this.release(taken, token);
      throw error;
    }
    let unsure = false;
    try {
      return await work(stale);
    } catch (error) {
      unsure = error instanceof DomainError && outcomeOf(error) === 'ambiguous';
      throw error;
    } finally {
      if (unsure) setTimeout(() => void this.release(taken, token), UNSURE_HOLD_MS).unref();
      else void this.release(taken, token);
    }
  }

  /** One hash tag per (holder, market): its lock and generation in one cluster slot. */
  private keysOf(holder: string, market: string): { lock: string; generation: string } {
    const tag = createHash('sha1')
      .update(JSON.stringify([holder, market]))
      .digest('hex');
    return { lock: `${this.prefix}{${tag}}:lock`, generation: `${this.prefix}{${tag}}:generation` };
  }

  private generation(holder: string, market: string): Promise<string> {
    return this.generationOf(this.keysOf(holder, market).generation, holder, 'body');
  }

  private async generationOf(key: string, holder: string, path: string): Promise<string> {
    if (!this.redis) return this.generations.get(key) ?? '';
    try {
      return (await this.redis.get(key)) ?? '';
    } catch {
      throw unreadable(holder, path);
    }
  }

  private async take(key: string, token: string, holder: string, path: string): Promise<void> {
    const deadline = this.clock.now() + WAIT_MS;
    for (;;) {
      if (await this.tryTake(key, token, holder, path)) return;
      if (this.clock.now() >= deadline) throw busy(holder, path);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  private async tryTake(key: string, token: string, holder: string, path: string): Promise<boolean> {
    if (!this.redis) {
      const held = this.local.get(key);
      if (held && held.until > this.clock.now()) return false;
      this.local.set(key, { token, until: this.clock.now() + LOCK_MS });
      return true;
    }
    try {
      return (await this.redis.set(key, token, 'PX', LOCK_MS, 'NX')) === 'OK';
    } catch {
      throw unreadable(holder, path);
    }
  }

  private async release(keys: readonly { lock: string; generation: string }[], token: string): Promise<void> {
    for (const key of keys) {
      if (!this.redis) {
        if (this.local.get(key.lock)?.token === token) this.local.delete(key.lock);
        this.generations.set(key.generation, token);
        continue;
      }
      // A lock Redis did not take back lapses after LOCK_MS, with no new generation: a reading older than half of it is stale anyway.
      await RELEASE.run(this.redis, [key.lock, key.generation], [token, GENERATION_MS]).catch(() => undefined);
    }
  }
}

function busy(holder: string, path: string): DomainError {
  return new DomainError(
    ErrorCode.RISK_POSITION_UNKNOWN,
    `Another order of ${holder} that reduces its position in this market is still in flight: under reduce-only, reducing orders of one holder in one market are judged one at a time, each against a position that counts the one before; retry. Nothing was sent.`,
    { extensions: { order: path }, headers: { 'Retry-After': '1' } },
  );
}

function unreadable(holder: string, path: string): DomainError {
  return new DomainError(
    ErrorCode.RISK_POSITION_UNKNOWN,
    `Under reduce-only, an order of ${holder} that reduces its position is judged while it holds its market across the gateway's instances, and Redis did not answer: nothing was sent.`,
    { extensions: { order: path }, headers: { 'Retry-After': '1' } },
  );
}
