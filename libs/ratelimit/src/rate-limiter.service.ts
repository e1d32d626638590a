import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  type Clock,
  type MetricsRegistry,
  newInstanceId,
  type Readiness,
  type ReadinessReport,
  type RedisClient,
  SystemClock,
} from '@lib/core';

import type { BucketDeclaration } from './budget/bucket-declaration.js';
import { BucketRegistry, scopedKey } from './budget/bucket-registry.js';
import { type Decision, decisionOf, unavailableDecision } from './budget/decision.js';
import type { BucketName, LimitsConfig, RequestClass, TeamConfig } from './budget/limits.types.js';
import { REQUEST_CLASSES } from './config/limits.config.js';
import { buildPlan, planId, type TakePlan, type TakeRequest } from './budget/take-plan.js';
import { type LinkLogger, mayHaveRun, RedisLink } from './cluster/redis-link.js';
import { RedisLatency } from './cluster/redis-latency.js';
import { assembleView, type LimitsView, viewCells } from './observe/limits-view.js';
import { RateLimitMetrics } from './observe/ratelimit.metrics.js';
import { sumUsage, TeamUsage, type UsageByBucket, type UsageRing } from './observe/team-usage.js';
import { CLASS_LETTER } from './store/budget-keys.js';
import { LocalBudgetStore } from './store/local-budget.store.js';
import { RedisBudgetStore } from './store/redis-budget.store.js';
import { WaitQueues } from './waiting/wait-queues.js';

export interface RateLimiterDeps {
  limits: LimitsConfig;
  teams?: readonly TeamConfig[];
  /** Buckets known from the start; surface libs add theirs with `buckets.declare` (see BucketRegistry). */
  buckets?: readonly BucketDeclaration[];
  /** null: single-instance mode, every decision local. */
  redis: RedisClient | null;
  /** The deployment's Redis key prefix (config `redis.keyPrefix`); it becomes the keys' hash tag. */
  keyPrefix?: string;
  metrics: MetricsRegistry;
  readiness?: Readiness;
  /** Retail accounts (API keys) of the deployment: the admin view lists per-key buckets for each. */
  accounts?: readonly string[];
  /** Time of local buckets (Redis buckets use Redis TIME). */
  clock?: Clock;
  instanceId?: string;
  logger?: LinkLogger;
}

export interface CoolDownOptions {
  /** Classes to stop; default all. An upstream 429 stops only the class that got it. */
  classes?: readonly RequestClass[];
  /** The retail account that got the 429: per-key buckets cool for that key only. */
  account?: string;
}

interface PreparedPlan {
  plan: TakePlan;
  rings: UsageRing[];
}

const ALL_CLASSES: readonly RequestClass[] = REQUEST_CLASSES;
/** Retry-After of a decision whose Redis answer came too late to be used (see decide). */
const LATE_ANSWER_RETRY_MS = 100;

/**
 * The shared upstream budget. Each decision is one Redis script call over all buckets of the
 * request; when Redis fails, decisions continue from local buckets and never throw for it.
 */
export class RateLimiter implements OnModuleInit, OnApplicationShutdown {
  readonly buckets: BucketRegistry;
  private readonly redisStore: RedisBudgetStore | undefined;
  private readonly link: RedisLink | undefined;
  private readonly local = new LocalBudgetStore();
  private readonly usage = new TeamUsage();
  private readonly metrics: RateLimitMetrics;
  private readonly queues: WaitQueues;
  private readonly plans = new Map<string, PreparedPlan>();
  private wasDegraded = false;
  /** When (this.clock) decisions last went back to Redis after an outage (sharing().returnedAt). */
  private returnedAt: number | undefined;
  private readonly clock: Clock;
  private readonly failClosed: ReadonlySet<RequestClass>;
  private readonly probeMs: number;
  private readonly maxDecisionAgeMs: number;
  /** This instance's measured Redis round trip: a steady latency is neither lateness nor an outage. */
  private readonly latency: RedisLatency | undefined;
  /** Cool-downs decided while Redis was out of reach: written to Redis once it answers, so every instance honours them. */
  private unsharedCoolDowns: { keys: string[]; letters: string; until: number }[] = [];
  /** A heartbeat older than this is a stale instance (deciding locally, or cut off). */
  private readonly instanceTtlMs: number;
  private readonly accounts: readonly string[];

  constructor(deps: RateLimiterDeps) {
    this.buckets = new BucketRegistry(deps.limits, deps.teams ?? [], deps.buckets);
    this.clock = deps.clock ?? new SystemClock();
    this.metrics = new RateLimitMetrics(deps.metrics);
    this.failClosed = new Set(deps.limits.failClosed);
    this.probeMs = deps.limits.probeMs;
    this.maxDecisionAgeMs = deps.limits.maxDecisionAgeMs;
    this.instanceTtlMs = deps.limits.instanceTtlMs;
    this.accounts = deps.accounts ?? [];
    this.queues = new WaitQueues(
      (r) => this.take(r),
      deps.limits.maxQueued,
      (r, ms) => this.metrics.waited(r.class, ms),
    );
    if (deps.redis) {
      this.redisStore = new RedisBudgetStore(deps.redis, deps.keyPrefix ?? 'pmgw:', (ms) => this.latency?.record(ms));
      const configuredTimeout = this.redisStore.commandTimeoutMs;
      if (configuredTimeout !== undefined)
        this.latency = new RedisLatency(configuredTimeout, deps.limits.redisLatencyAllowanceMs);
      const options = { ...deps.limits, instanceId: deps.instanceId ?? newInstanceId() };
      const usage = () => JSON.stringify(this.usage.lastMinute(this.clock.now()));
      const store = this.redisStore;
      const knownCells = () => [
        ...new Map([...this.plans.values()].flatMap((p) => p.plan.cells).map((c) => [c.key, c])).values(),
      ];
      const remeasure = (heartbeatMs: number) => {
        if (!this.latency) return;
        this.latency.record(heartbeatMs);
        this.latency.update();
        if (store.commandTimeoutMs !== this.latency.timeoutMs) store.commandTimeoutMs = this.latency.timeoutMs;
      };
      this.link = new RedisLink(
        store,
        options,
        usage,
        () => this.statusChanged(),
        deps.logger ?? new Logger('RateLimiter'),
        async () => {
          await store.reseed(knownCells());
          await this.shareCoolDowns(store);
          this.returnedAt = this.clock.now();
        },
        remeasure,
      );
    }
    deps.readiness?.register('ratelimit', () => this.readiness());
  }

  async onModuleInit(): Promise<void> {
    await this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Loads the scripts and starts the heartbeat. Never throws: an unreachable Redis means degraded mode. */
  async start(): Promise<void> {
    await this.link?.start();
  }

  async stop(): Promise<void> {
    await this.link?.stop();
  }

  /** One all-or-none decision over every bucket of the request (and the team's shares of them). */
  async take(request: TakeRequest): Promise<Decision> {
    const prepared = this.prepare(request);
    const cost = request.cost ?? 1;
    if (!(cost > 0) || cost > prepared.plan.maxCost)
      throw new RangeError(
        `Cost ${cost} can never fit ${request.buckets.join(' + ')} (at most ${prepared.plan.maxCost})`,
      );
    let plan = prepared.plan;
    let decision = await this.decide(plan, cost);
    // No gateway rule holds a cancel back: one its team's share refused takes what the buckets hold beyond
    // the other teams' shares (TakeRequest.borrows). That answer is the last word, a refusal too: its wait
    // is the one that counts (a paced bucket's turn, the others' shares refilled).
    if (!decision.allowed && decision.limitedBy === 'team-share' && request.class === 'cancel') {
      const borrowing = this.prepare({ ...request, borrows: true }).plan;
      if (cost <= borrowing.maxCost) {
        [plan, decision] = [borrowing, await this.decide(borrowing, cost)];
        if (decision.allowed) decision.borrowed = true;
      }
    }
    const now = this.clock.now();
    for (const ring of prepared.rings) ring.record(decision.allowed, cost, now);
    this.metrics.decision(plan, decision);
    return decision;
  }

  /** The plan a decision was taken under (a borrowed one's has no share cell): what a refund gives back. */
  private planOf(request: TakeRequest, decision: Decision): TakePlan {
    return this.prepare(decision.borrowed ? { ...request, borrows: true } : request).plan;
  }

  /**
   * Waits in line (per class and bucket set) until the request is allowed; rejects with
   * BudgetWaitTooLongError, carrying the wait needed, when that wait would exceed `maxWaitMs`.
   */
  takeOrWait(request: TakeRequest, maxWaitMs: number): Promise<Decision> {
    return this.queues.takeOrWait(request, maxWaitMs);
  }

  /** Upstream said 429: every instance stops sending on these buckets for `seconds`. Never throws. */
  async coolDown(buckets: readonly BucketName[], seconds: number, options: CoolDownOptions = {}): Promise<void> {
    if (buckets.length === 0) return;
    const keys = buckets.map((b) => scopedKey(this.buckets.get(b), options.account));
    const letters = (options.classes ?? ALL_CLASSES).map((c) => CLASS_LETTER[c]).join('');
    const ms = Math.max(1, seconds * 1000);
    buckets.forEach((bucket, i) => this.metrics.upstreamRefusal(bucket, keys[i]));
    this.local.coolDown(keys, letters, ms, this.clock.now());
    if (!this.redisStore || !this.link) return;
    const unshared = { keys, letters, until: this.clock.now() + ms };
    if (this.link.degraded) return void this.unsharedCoolDowns.push(unshared);
    try {
      await this.redisStore.coolDown(keys, letters, ms);
    } catch (error) {
      this.unsharedCoolDowns.push(unshared);
      this.link.failed(error);
    }
  }

  /** Replays the cool-downs of an outage that still run; one that fails again stays for the next return. */
  private async shareCoolDowns(store: RedisBudgetStore): Promise<void> {
    const pending = this.unsharedCoolDowns;
    this.unsharedCoolDowns = [];
    const now = this.clock.now();
    for (const [i, coolDown] of pending.entries()) {
      if (coolDown.until <= now) continue;
      try {
        await store.coolDown(coolDown.keys, coolDown.letters, coolDown.until - now);
      } catch (error) {
        this.unsharedCoolDowns.push(...pending.slice(i).filter((c) => c.until > now));
        throw error;
      }
    }
  }

  /** Every bucket with capacity, level, refill rate and per-team use over the last minute. */
  async view(): Promise<LimitsView> {
    const cells = viewCells(this.buckets, this.accounts);
    if (this.redisStore && this.link && !this.link.degraded) {
      try {
        const states = await this.redisStore.read(cells);
        const usage = sumUsage((await this.redisStore.liveUsage()).map((doc) => JSON.parse(doc) as UsageByBucket));
        const members = await this.redisStore.members(this.instanceTtlMs);
        return assembleView(this.buckets, cells, states, usage, { ...this.status(), members });
      } catch (error) {
        this.link.failed(error);
      }
    }
    const states = this.local.read(cells, this.link?.localShareOf ?? 1, this.clock.now());
    return assembleView(this.buckets, cells, states, this.usage.lastMinute(this.clock.now()), this.status());
  }

  /**
   * Whether decisions are shared through Redis now (false: single-instance, or Redis down), and the
   * number of instances a local decision's share is sized for (never fewer than configured). Other
   * per-fleet counts (the risk throttle) follow the same rule while Redis is down. `returnedAt`: when
   * (this clock) decisions last went back to Redis after an outage; undefined if they never left it.
   */
  sharing(): { shared: boolean; localShareOf: number; returnedAt?: number } {
    return {
      shared: this.link !== undefined && !this.link.degraded,
      localShareOf: this.link?.localShareOf ?? 1,
      returnedAt: this.returnedAt,
    };
  }

  status(): Omit<LimitsView, 'buckets'> {
    if (!this.link) return { mode: 'single-instance', degraded: false, instances: 1 };
    return {
      mode: this.link.degraded ? 'local' : 'redis',
      degraded: this.link.degraded,
      instances: this.link.instances,
    };
  }

  private async decide(plan: TakePlan, cost: number): Promise<Decision> {
    if (this.redisStore && this.link && !this.link.degraded) {
      const askedAt = performance.now();
      try {
        const outcome = await this.redisStore.take(plan, cost);
        this.link.succeeded();
        // Read late (a starved event loop): sent now, the request would arrive bunched with later ones.
        // Refused, and its tokens given back (best effort: if that fails too they stay spent, which is safe).
        if (outcome.allowed && performance.now() - askedAt > this.maxAgeMs) {
          this.redisStore.refund(plan, cost).catch(() => undefined);
          return this.lateAnswer(plan);
        }
        return decisionOf(plan, outcome, 'redis', askedAt);
      } catch (error) {
        this.link.failed(error, askedAt);
        // The script may have run and taken the tokens though its answer came late: deciding again
        // locally could spend them twice. Refused instead; the client may retry at once.
        if (mayHaveRun(error)) return this.lateAnswer(plan);
      }
    }
    if (this.link && this.failClosed.has(plan.klass)) return unavailableDecision(plan, this.probeMs, 'local');
    const instances = this.link?.localShareOf ?? 1;
    return decisionOf(
      plan,
      this.local.take(plan, cost, instances, this.clock.now()),
      'local',
      performance.now(),
      instances,
    );
  }

  /**
   * Right before the request is sent: an allowed decision asked for more than `maxDecisionAgeMs` ago
   * (the process stalled between its budget and its send: a busy CPU) is withdrawn. Sent now, the
   * request would leave bunched with those admitted after it. Its tokens are given back (shared
   * budget; local tokens stay spent, which is safe) and the refusal is returned, counted as
   * `unavailable`; the client may retry at once. `undefined`: send it.
   */
  lateAtSend(request: TakeRequest, decision: Decision): Decision | undefined {
    if (!this.aged(decision)) return undefined;
    const plan = this.planOf(request, decision);
    if (decision.mode === 'redis') this.redisStore?.refund(plan, request.cost ?? 1).catch(() => undefined);
    const late = unavailableDecision(plan, LATE_ANSWER_RETRY_MS, decision.mode);
    this.metrics.decision(plan, late);
    return late;
  }

  /**
   * An allowed decision whose request was stopped before its send (a gateway rule checked at send time):
   * its tokens are given back to the shared budget (best effort, not awaited; local tokens stay spent,
   * which is safe, as lateAtSend's).
   */
  giveBack(request: TakeRequest, decision: Decision): void {
    if (!decision.allowed || decision.mode !== 'redis') return;
    const plan = this.planOf(request, decision);
    this.redisStore?.refund(plan, request.cost ?? 1).catch(() => undefined);
  }

  /** An allowed decision asked for more than `maxDecisionAgeMs` ago (see lateAtSend): a clock read, no allocation. */
  aged(decision: Decision): boolean {
    if (!decision.allowed || decision.askedAt === undefined) return false;
    return performance.now() - decision.askedAt > (decision.mode === 'redis' ? this.maxAgeMs : this.maxDecisionAgeMs);
  }

  /** `maxDecisionAgeMs` plus the steady part of this instance's Redis round trip (RedisLatency). */
  private get maxAgeMs(): number {
    return this.maxDecisionAgeMs + (this.latency?.allowanceMs ?? 0);
  }

  /** An answer that came too late (or never): refused, and the client may retry at once. */
  private lateAnswer(plan: TakePlan): Decision {
    return unavailableDecision(plan, LATE_ANSWER_RETRY_MS, 'redis');
  }

  private prepare(request: TakeRequest): PreparedPlan {
    const id = planId(request);
    let prepared = this.plans.get(id);
    if (!prepared) {
      const plan = buildPlan(this.buckets, request);
      prepared = {
        plan,
        rings: plan.cells.slice(0, plan.upstreamCount).map((c) => this.usage.ring(c.bucketKey, request.team)),
      };
      this.plans.set(id, prepared);
    }
    return prepared;
  }

  private statusChanged(): void {
    const { degraded, instances } = this.status();
    if (degraded && !this.wasDegraded) this.local.beginOutage(this.clock.now(), this.link?.holdMs ?? 0);
    this.wasDegraded = degraded;
    this.metrics.setDegraded(degraded);
    this.metrics.setInstances(instances);
  }

  private readiness(): ReadinessReport {
    const { mode, degraded, instances } = this.status();
    return { status: degraded ? 'degraded' : 'up', details: { mode, instances } };
  }
}
