import { randomUUID } from 'node:crypto';

import { LuaScript, nextRedisEvent, type RedisClient } from '@lib/core';
import { Cluster } from 'ioredis';

import type { PlanCell, TakePlan } from '../budget/take-plan.js';
import {
  ADOPT_SCRIPT,
  COOL_DOWN_SCRIPT,
  HEARTBEAT_SCRIPT,
  READ_SCRIPT,
  REFUND_SCRIPT,
  RESEED_SCRIPT,
  TAKE_SCRIPT,
} from '../gcra/gcra.lua.js';
import type { InstanceView } from '../observe/limits-view.js';
import { BudgetKeys } from './budget-keys.js';
import type { CellState, StoreOutcome } from './store-outcome.js';
import { BudgetLostError, type PendingTake, type PreparedPlan, preparePlan, TakeBatch } from './take-batch.js';

/**
 * Requests arriving while this many calls are in flight wait for the next batch: one call carries
 * many decisions, so TIME, the script start and the socket round trip are paid once per batch.
 */
const MAX_IN_FLIGHT = 2;
/** Bounds a batch, so one script run stays short (Redis runs nothing else meanwhile). */
const MAX_BATCH = 128;

/** The shared budget in Redis: one script round trip per decision. Every method rejects when Redis fails. */
export class RedisBudgetStore {
  readonly keys: BudgetKeys;
  private readonly takeScript = new LuaScript(TAKE_SCRIPT);
  private readonly coolDownScript = new LuaScript(COOL_DOWN_SCRIPT);
  private readonly heartbeatScript = new LuaScript(HEARTBEAT_SCRIPT);
  private readonly readScript = new LuaScript(READ_SCRIPT);
  private readonly reseedScript = new LuaScript(RESEED_SCRIPT);
  private readonly refundScript = new LuaScript(REFUND_SCRIPT);
  private readonly adoptScript = new LuaScript(ADOPT_SCRIPT);
  /** The budget generation this instance spends on ('' until adopted: every take and heartbeat fails as lost). */
  private generation = '';
  private readonly prepared = new WeakMap<TakePlan, PreparedPlan & { share: number }>();
  /** See reserveStale. */
  private share = 1;
  private readonly pending: PendingTake[] = [];
  private inFlight = 0;

  constructor(
    private readonly redis: RedisClient,
    keyPrefix: string,
    /** Each take call's round trip (ms, send to reply) that came back. */
    private readonly onRoundTrip: (ms: number) => void = () => undefined,
  ) {
    this.keys = new BudgetKeys(keyPrefix);
  }

  /** The client's command timeout (ms), as configured (`redis.commandTimeoutMs`); undefined: none. */
  get commandTimeoutMs(): number | undefined {
    const nodes = this.redis instanceof Cluster ? this.redis.nodes() : [this.redis];
    return nodes[0]?.options.commandTimeout;
  }

  /** Sets the command timeout of the client (every node of a Cluster); ioredis reads it per command. */
  set commandTimeoutMs(ms: number) {
    const nodes = this.redis instanceof Cluster ? this.redis.nodes() : [this.redis];
    for (const node of nodes) node.options.commandTimeout = ms;
  }

  /** Waits (bounded) for the connection a fresh client is still opening: with no offline queue, commands sent earlier fail. */
  async ready(timeoutMs: number): Promise<void> {
    if (this.redis.status !== 'ready') await nextRedisEvent(this.redis, 'ready', timeoutMs);
  }

  async load(): Promise<void> {
    for (const script of [
      this.takeScript,
      this.refundScript,
      this.coolDownScript,
      this.heartbeatScript,
      this.readScript,
      this.adoptScript,
    ])
      await script.load(this.redis);
  }

  /**
   * Takes the budget generation in force (ADOPT_SCRIPT), creating it when Redis has none. Answers true
   * when this instance held another one: Redis lost the budget since, and `knownBefore` instances stay
   * reserved (at most `floorMs`) until they have announced themselves again.
   */
  async adopt(knownBefore: number, floorMs: number): Promise<boolean> {
    const held = this.generation;
    const candidate = randomUUID();
    const keys = [this.keys.generation(), this.keys.lostFloor()];
    this.generation = String(await this.adoptScript.run(this.redis, keys, [held, candidate, knownBefore, floorMs]));
    return held !== '' && held !== this.generation;
  }

  /** Decides one request; concurrent requests share a script call, each still all or none. */
  take(plan: TakePlan, cost: number): Promise<StoreOutcome> {
    return new Promise((resolve, reject) => {
      this.pending.push({ plan, cost, resolve, reject });
      if (this.inFlight < MAX_IN_FLIGHT) this.flush();
    });
  }

  /** Gives back an allowed decision's tokens whose request was never sent (see REFUND_SCRIPT); never more than it took. */
  async refund(plan: TakePlan, cost: number): Promise<void> {
    const keys = [...plan.cells.map((c) => this.keys.tat(c.key)), this.keys.generation()];
    await this.refundScript.run(this.redis, keys, [...plan.cells.map((c) => cost * c.emissionMs), this.generation]);
  }

  async coolDown(bucketKeys: readonly string[], classLetters: string, ms: number): Promise<void> {
    const keys = bucketKeys.map((k) => this.keys.coolDown(k));
    await this.coolDownScript.run(this.redis, keys, [classLetters, Math.max(1, Math.ceil(ms))]);
  }

  /**
   * Announces the instance and publishes its usage; answers how many instances are known (heard from
   * within `horizonMs`) and how many of them are fresh (heard from within `staleMs`, not deciding locally).
   */
  async heartbeat(
    instanceId: string,
    horizonMs: number,
    usage: string,
    staleMs: number,
    local: boolean,
  ): Promise<{ known: number; fresh: number }> {
    const keys = [this.keys.instances(), this.keys.usage(instanceId), this.keys.generation(), this.keys.lostFloor()];
    const [known, fresh] = (await this.heartbeatScript.run(this.redis, keys, [
      instanceId,
      horizonMs,
      usage,
      staleMs,
      local ? '1' : '0',
      this.generation,
    ])) as [number, number];
    if (known === -1) throw new BudgetLostError();
    return { known, fresh };
  }

  /**
   * The part of every shared bucket the fresh instances may spend: `fresh / known`. An instance whose
   * heartbeat went stale is presumed cut off and deciding from its local share (1/known), so the shared
   * side leaves that share alone until it is back or forgotten.
   */
  reserveStale(known: number, fresh: number): void {
    this.share = known > 0 ? Math.min(1, Math.max(1, fresh) / known) : 1;
  }

  /**
   * Every instance heard from, as the heartbeat set records it: an instance counts as deciding from the
   * shared budget while its last heartbeat is fresher than `staleMs` (one deciding locally writes its
   * heartbeat stale on purpose), else as local or cut off.
   */
  async members(staleMs: number): Promise<InstanceView[]> {
    const [[seconds, micros], entries] = await Promise.all([
      this.redis.time(),
      this.redis.zrange(this.keys.instances(), '0', '-1', 'WITHSCORES'),
    ]);
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const members: InstanceView[] = [];
    for (let i = 0; i + 1 < entries.length; i += 2) {
      const heardMsAgo = Math.max(0, now - Number(entries[i + 1]));
      members.push({ id: entries[i], mode: heardMsAgo < staleMs ? 'redis' : 'local', heardMsAgo });
    }
    return members;
  }

  async leave(instanceId: string): Promise<void> {
    await this.redis.zrem(this.keys.instances(), instanceId);
    await this.redis.del(this.keys.usage(instanceId));
  }

  /** Usage documents published by the instances alive now. */
  async liveUsage(): Promise<string[]> {
    const ids = await this.redis.zrange(this.keys.instances(), '0', '-1');
    if (ids.length === 0) return [];
    const docs = await this.redis.mget(...ids.map((id) => this.keys.usage(id)));
    return docs.filter((d): d is string => typeof d === 'string');
  }

  /** After an outage: creates the missing TATs of `cells` spent, leaves existing ones (see RESEED_SCRIPT). */
  async reseed(cells: readonly PlanCell[]): Promise<number> {
    if (cells.length === 0) return 0;
    const keys = cells.map((c) => this.keys.tat(c.key));
    return (await this.reseedScript.run(
      this.redis,
      keys,
      cells.map((c) => c.capacity * c.emissionMs),
    )) as number;
  }

  /** Current level and cool-down of each cell, read at one Redis instant. */
  async read(cells: readonly PlanCell[]): Promise<CellState[]> {
    const keys = [...cells.map((c) => this.keys.tat(c.key)), ...cells.map((c) => this.keys.coolDown(c.bucketKey))];
    const reply = (await this.readScript.run(this.redis, keys, [cells.length])) as string[];
    const now = Number(reply[0]) / 1000;
    return cells.map((cell, i) => {
      const tat = reply[1 + i] === '' ? now : Math.max(now, Number(reply[1 + i]));
      const level = Math.max(0, (now + cell.capacity * cell.emissionMs - tat) / cell.emissionMs);
      return { level, coolDownMs: Math.max(0, Number(reply[1 + cells.length + i])) };
    });
  }

  private flush(): void {
    const batch = new TakeBatch();
    for (const entry of this.pending.splice(0, MAX_BATCH)) batch.add(entry, this.prepare(entry.plan));
    this.inFlight++;
    const [numKeys, keysAndArgs] = batch.keysAndArgs(this.keys.generation(), this.generation);
    const sentAt = performance.now();
    this.takeScript
      .runFlat(this.redis, numKeys, keysAndArgs)
      .then((reply) => {
        this.onRoundTrip(performance.now() - sentAt);
        batch.settle(reply as number[]);
      })
      // A failed call (or an unreadable reply) fails every request of the batch; each then decides locally.
      .catch((error: unknown) => batch.fail(error))
      .finally(() => {
        this.inFlight--;
        if (this.pending.length > 0 && this.inFlight < MAX_IN_FLIGHT) this.flush();
      });
  }

  private prepare(plan: TakePlan): PreparedPlan {
    let prepared = this.prepared.get(plan);
    if (prepared?.share !== this.share)
      this.prepared.set(plan, (prepared = { ...preparePlan(plan, this.keys, this.share), share: this.share }));
    return prepared;
  }
}
