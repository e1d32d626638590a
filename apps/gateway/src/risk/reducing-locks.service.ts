import { createHash, randomUUID } from 'node:crypto';

import { Inject, Injectable } from '@nestjs/common';
import {
  Clock,
  DomainError,
  ErrorCode,
  GATEWAY_CONFIG,
  type LockMark,
  REDIS,
  type RedisClient,
  releaseLock,
  takeLock,
} from '@lib/core';

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
        const generation = await this.take(key, token, holder, path);
        taken.push(key);
        if (!stale) stale = reading!.seen.get(names[i]!) !== generation;
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

  /** One hash tag per (holder, market): its lock and its generation (the lock's mark) in one cluster slot. */
  private keysOf(holder: string, market: string): { lock: string; generation: LockMark } {
    const tag = createHash('sha1')
      .update(JSON.stringify([holder, market]))
      .digest('hex');
    return {
      lock: `${this.prefix}{${tag}}:lock`,
      generation: { key: `${this.prefix}{${tag}}:generation`, ms: GENERATION_MS },
    };
  }

  private async generation(holder: string, market: string): Promise<string> {
    const key = this.keysOf(holder, market).generation.key;
    if (!this.redis) return this.generations.get(key) ?? '';
    try {
      return (await this.redis.get(key)) ?? '';
    } catch {
      throw unreadable(holder, 'body');
    }
  }

  /** Waits for the lock (at most WAIT_MS); resolves with the market's generation as the last release left it. */
  private async take(key: Keys, token: string, holder: string, path: string): Promise<string> {
    const deadline = this.clock.now() + WAIT_MS;
    for (;;) {
      const generation = await this.tryTake(key, token, holder, path);
      if (generation !== undefined) return generation;
      if (this.clock.now() >= deadline) throw busy(holder, path);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  private async tryTake(key: Keys, token: string, holder: string, path: string): Promise<string | undefined> {
    if (!this.redis) {
      const held = this.local.get(key.lock);
      if (held && held.until > this.clock.now()) return undefined;
      this.local.set(key.lock, { token, until: this.clock.now() + LOCK_MS });
      return this.generations.get(key.generation.key) ?? '';
    }
    try {
      return await takeLock(this.redis, key.lock, token, LOCK_MS, key.generation);
    } catch {
      throw unreadable(holder, path);
    }
  }

  private async release(keys: readonly Keys[], token: string): Promise<void> {
    for (const key of keys) {
      if (!this.redis) {
        if (this.local.get(key.lock)?.token === token) this.local.delete(key.lock);
        this.generations.set(key.generation.key, token);
        continue;
      }
      // A lock Redis did not take back lapses after LOCK_MS, with no new generation: a reading older than half of it is stale anyway.
      await releaseLock(this.redis, key.lock, token, key.generation).catch(() => undefined);
    }
  }
}

type Keys = { lock: string; generation: LockMark };

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
