import { Logger } from '@nestjs/common';
import { type Clock, type RedisClient, systemClock } from '@lib/core';
import { Cluster } from 'ioredis';

import { newEpoch } from '../hub/epoch.js';
import type { TopicState } from '../hub/topic.state.js';
import type { FanoutMetrics } from '../metrics/fanout.metrics.js';
import type { TopicCoordinator, TopicHost } from './coordinator.types.js';
import { LeaseScripts, type TopicKeys } from './lease.scripts.js';
import { RelaySubscriber } from './relay.subscriber.js';

export interface ClusterOptions {
  keyPrefix: string;
  instanceId: string;
  /** A dead holder's lease lapses after this long; a live one renews it (and heartbeats) every `renewEveryMs`. */
  leaseMs: number;
  renewEveryMs: number;
  /** A relay that hears neither frames nor heartbeats from the holder this long takes the topic locally. */
  silenceMs: number;
  /** How often leases and relay silence are checked against the clock (no Redis command). */
  watchEveryMs: number;
  /** How long the recorded seq and snapshot of a topic outlive its last frame. */
  stateTtlMs: number;
  /** At most one resync request per topic in this interval (a relay gap must not hammer the upstream). */
  resyncIntervalMs: number;
}

interface WantedTopic {
  state: TopicState;
  keys: TopicKeys;
  /** Frames that arrive while a relay is being seeded or reads missed frames back from the log: they wait behind those. */
  buffered?: Buffer[];
  /** The seq after which the log lacked the next frame: a gap there costs a resync instead of another read. */
  lostAfter?: number;
  /** The epoch of the lease this instance holds, while it does. */
  leaseEpoch?: string;
  /** `performance.now()` before which the lease is surely still ours: Redis cannot have expired it yet. */
  leaseUntil: number;
  /** `performance.now()` when the holder was last heard (a frame or a heartbeat), for a relay. */
  heardAt: number;
  /** `performance.now()` when this instance held the topic locally for want of a holder it could hear. */
  localAt?: number;
}

/**
 * Holds each topic once per cluster: a Redis lease per topic, frames published by the holder on a
 * channel per topic and relayed by the other instances. Every holding has its own epoch (see
 * TopicState.epoch). Instances that want a topic keep trying to take its lease, so a dead holder is
 * replaced within about `leaseMs + renewEveryMs`; sooner, a relay that hears nothing from the holder
 * for `silenceMs` (or loses Redis) holds the topic locally under an epoch of its own. A holder that
 * could not renew its lease gives up its epoch before Redis can expire it (fencing): two instances
 * never serve one epoch.
 */
export class RedisCoordinator implements TopicCoordinator {
  private readonly logger = new Logger('FanoutCluster');
  private readonly scripts: LeaseScripts;
  private readonly subscriber: RelaySubscriber;
  /** Wanted topics by channel. */
  private readonly wanted = new Map<string, WantedTopic>();
  private readonly lastResync = new Map<string, number>();
  private readonly timers: NodeJS.Timeout[];
  /** The pub/sub connection opened at construction (see RelaySubscriber.start). */
  private readonly started: Promise<void>;
  private ticking = false;
  /** close() began: a lease taken by a tick still under way is given back, not served (the hub is closing). */
  private closing = false;

  constructor(
    redis: RedisClient,
    private readonly host: TopicHost,
    private readonly metrics: FanoutMetrics,
    private readonly options: ClusterOptions,
    private readonly clock: Clock = systemClock,
  ) {
    const sharded = redis instanceof Cluster;
    this.scripts = new LeaseScripts(
      redis,
      options.instanceId,
      options.leaseMs,
      options.stateTtlMs,
      sharded ? 'spublish' : 'publish',
    );
    this.subscriber = new RelaySubscriber(redis, `${options.keyPrefix}resync`, {
      frame: (channel, payload) => this.onFrame(channel, payload),
      resync: (topic) => this.onResyncRequest(topic),
    });
    this.started = this.subscriber.start();
    this.timers = [
      setInterval(() => void this.tick(), options.renewEveryMs).unref(),
      setInterval(() => this.watch(), options.watchEveryMs).unref(),
    ];
  }

  ready(): Promise<void> {
    return this.started;
  }

  async join(state: TopicState): Promise<void> {
    const entry: WantedTopic = {
      state,
      keys: this.keysOf(state.name),
      buffered: [],
      leaseUntil: 0,
      heardAt: performance.now(),
    };
    this.wanted.set(entry.keys.channel, entry);
    const epoch = newEpoch();
    const sentAt = performance.now();
    let seq: number;
    try {
      // Subscribe before reading the recorded state, so no frame falls between the two.
      await this.subscriber.subscribe(entry.keys.channel);
      seq = await this.scripts.acquire(entry.keys, epoch);
      if (seq < 0) return await this.startRelay(entry);
    } catch (error) {
      // Redis is unreachable: serve local clients from a local upstream; the tick reconciles later.
      this.logger.warn(`Redis unavailable for topic ${state.name}, holding it locally: ${String(error)}`);
      entry.buffered = undefined;
      entry.localAt = performance.now();
      this.metrics.leaseChanges.inc({ change: 'unreachable' });
      return this.host.hold(state, state.seq, newEpoch());
    }
    entry.buffered = undefined;
    if (this.wanted.get(entry.keys.channel) !== entry)
      return void (await this.scripts.release(entry.keys, epoch).catch(() => undefined)); // closed meanwhile
    this.took(entry, epoch, sentAt);
    await this.host.hold(state, seq, epoch, await this.published(entry)).catch(async (error: unknown) => {
      await this.releaseLease(entry);
      throw error;
    });
  }

  async leave(state: TopicState): Promise<void> {
    const keys = this.keysOf(state.name);
    const entry = this.wanted.get(keys.channel);
    if (entry?.state !== state) return;
    this.wanted.delete(keys.channel);
    this.lastResync.delete(state.name);
    await Promise.all([this.subscriber.unsubscribe(keys.channel), this.releaseLease(entry)]);
  }

  publish(state: TopicState, frameJson: string, seq: number, snapshotJson: string, checkpoint = ''): void {
    const entry = this.wanted.get(this.keysOf(state.name).channel);
    const epoch = entry?.leaseEpoch;
    // A local hold publishes nothing, so stores no checkpoint: the cluster's stays at what it published.
    if (!entry || epoch === undefined || entry.state !== state) return;
    const logged = state.route.policy.replayWindow?.messages ?? 0;
    this.scripts.publish(entry.keys, epoch, seq, frameJson, snapshotJson, logged, checkpoint).then(
      (published) => {
        if (!published && entry.leaseEpoch === epoch) this.lost(entry);
      },
      // Relays see the missing seq (or hear nothing) and resync or take the topic locally.
      () => undefined,
    );
  }

  checkpoint(state: TopicState): Promise<string | undefined> {
    return this.scripts.checkpoint(this.keysOf(state.name));
  }

  /**
   * A relay missed frames (pub/sub drops what arrives while its connection is down): they are read back
   * from the topic's log and relayed in order, `payload` and later frames waiting behind them. `false`
   * (no log, or it lacked the next frame already) leaves the gap to a resync.
   */
  recover(state: TopicState, payload?: Buffer): boolean {
    const entry = this.wanted.get(this.keysOf(state.name).channel);
    if (entry?.state !== state || !state.route.policy.replayWindow || entry.lostAfter === state.seq) return false;
    if (!entry.buffered) {
      entry.buffered = [];
      void this.readBack(entry);
    }
    if (payload) entry.buffered.push(payload);
    return true;
  }

  requestResync(state: TopicState): void {
    if (!this.allowResync(state.name)) return;
    this.subscriber.requestResync(state.name).catch(() => this.lastResync.delete(state.name));
  }

  async close(): Promise<void> {
    this.closing = true;
    this.timers.forEach((timer) => clearInterval(timer));
    await Promise.all([...this.wanted.values()].map((entry) => this.releaseLease(entry)));
    this.wanted.clear();
    await this.subscriber.close();
  }

  private async startRelay(entry: WantedTopic): Promise<void> {
    const recorded = await this.scripts.state(entry.keys);
    // A folded topic's recorded state may lack its last few updates: they are in the log (read after the state, so it holds them).
    const { fold, replayWindow } = entry.state.route.policy;
    const logged = fold && replayWindow ? await this.scripts.log(entry.keys).catch(() => []) : [];
    this.host.seed(entry.state, recorded, logged);
    entry.heardAt = performance.now();
    this.flush(entry, []);
  }

  /** The missed frames of the relay's epoch from the log; only when the log lacks the next one, a resync. */
  private async readBack(entry: WantedTopic): Promise<void> {
    const { state } = entry;
    const after = state.seq;
    // Unreadable or unreachable, the log holds nothing for us: the resync below then covers the gap.
    const missed = await this.scripts
      .log(entry.keys)
      .then((logged) => framesAfter(logged, state.epoch, after))
      .catch(() => []);
    if (missed[0]?.seq !== after + 1) {
      entry.lostAfter = after;
      this.requestResync(state);
    }
    this.flush(
      entry,
      missed.map(({ payload }) => payload),
    );
  }

  /** Relays `frames`, then those that waited; the rest waits again if relaying one started another read-back. */
  private flush(entry: WantedTopic, frames: Buffer[]): void {
    const waiting = [...frames, ...(entry.buffered ?? [])];
    entry.buffered = undefined;
    const readingBack = (): Buffer[] | undefined => entry.buffered; // relaying a frame may set it again
    for (const [i, payload] of waiting.entries()) {
      const again = readingBack();
      if (again) return void again.push(...waiting.slice(i));
      if (entry.state.mode === 'relay' && this.wanted.get(entry.keys.channel) === entry)
        this.host.relayed(entry.state, payload);
    }
  }

  /** What the cluster published of a topic with a replay window (its log): a new holder's source must not send it again. */
  private published(entry: WantedTopic): Promise<Buffer[]> {
    if (!entry.state.route.policy.replayWindow) return Promise.resolve([]);
    return this.scripts.log(entry.keys).catch(() => []);
  }

  private onFrame(channel: string, payload: Buffer): void {
    const entry = this.wanted.get(channel);
    if (!entry) return;
    entry.heardAt = performance.now();
    if (isHeartbeat(payload)) return this.onHeartbeat(entry, payload.toString());
    if (entry.buffered) entry.buffered.push(payload);
    else if (entry.state.mode === 'relay') this.host.relayed(entry.state, payload);
  }

  /** A heartbeat naming a seq this relay never got means the holder's last frames were lost. */
  private onHeartbeat(entry: WantedTopic, text: string): void {
    const [, epoch, seq] = text.split(':');
    const { state } = entry;
    if (state.mode === 'relay' && !entry.buffered && epoch === state.epoch && Number(seq) > state.seq) {
      this.metrics.relayGaps.inc();
      if (!this.recover(state)) this.requestResync(state);
    }
  }

  private onResyncRequest(topic: string): void {
    const entry = this.wanted.get(this.keysOf(topic).channel);
    if (entry?.leaseEpoch && entry.state.mode === 'holder' && this.allowResync(topic)) this.host.reopen(entry.state);
  }

  /**
   * Clock checks, no Redis: a holder whose lease may lapse before a renewal can land gives up its
   * epoch (a new local one, with a resync); a relay that stopped hearing the holder holds locally.
   */
  private watch(): void {
    const now = performance.now();
    for (const entry of this.wanted.values()) {
      const { state } = entry;
      if (entry.leaseEpoch !== undefined && now >= entry.leaseUntil) {
        this.logger.warn(`Lease of topic ${state.name} not renewed in time: serving it under a local epoch`);
        entry.leaseEpoch = undefined;
        this.metrics.leaseChanges.inc({ change: 'fenced' });
        this.host.reopen(state, newEpoch());
      } else if (state.mode === 'relay' && !entry.buffered && now - entry.heardAt > this.options.silenceMs) {
        this.logger.warn(`Nothing heard from the holder of topic ${state.name}: holding it locally`);
        entry.heardAt = entry.localAt = now;
        this.metrics.leaseChanges.inc({ change: 'silence' });
        this.host.hold(state, state.seq, newEpoch()).catch((error: unknown) => {
          this.logger.warn(`Could not hold topic ${state.name} locally: ${String(error)}`);
          this.host.relay(state);
        });
      }
    }
  }

  /** Renews held leases, tries to take the others, and re-subscribes channels Redis refused earlier. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await Promise.all([...this.wanted.values()].map((entry) => this.reconcile(entry).catch(() => undefined)));
    } finally {
      this.ticking = false;
    }
  }

  private async reconcile(entry: WantedTopic): Promise<void> {
    const { state, keys } = entry;
    if (state.mode === 'joining' || state.mode === 'closed') return;
    if (entry.leaseEpoch !== undefined) return this.renew(entry, entry.leaseEpoch);
    await this.subscriber.subscribe(keys.channel);
    const epoch = newEpoch();
    const sentAt = performance.now();
    const seq = await this.scripts.acquire(keys, epoch);
    if (seq < 0) {
      // A local hold (Redis outage, silent holder) yields to the cluster's holder, with a resync, once
      // that holder is heard: a killed one still has its lease until it lapses, and a relay of it would
      // get only its recorded state, older than the frames this instance sent meanwhile.
      if (state.mode === 'holder' && entry.heardAt > (entry.localAt ?? -Infinity)) await this.yieldTo(entry);
      return;
    }
    if (this.closing || this.wanted.get(keys.channel) !== entry) return void (await this.scripts.release(keys, epoch));
    this.took(entry, epoch, sentAt);
    if (state.mode === 'holder') {
      // Held locally (maybe by others too): a fresh upstream snapshot opens the cluster's epoch.
      state.seq = Math.max(state.seq, seq);
      return this.host.reopen(state, epoch);
    }
    await this.host.hold(state, seq, epoch, await this.published(entry)).catch(async (error: unknown) => {
      this.logger.warn(`Could not take over topic ${state.name}: ${String(error)}`);
      this.host.relay(state);
      await this.releaseLease(entry);
    });
  }

  private async renew(entry: WantedTopic, epoch: string): Promise<void> {
    const sentAt = performance.now();
    const renewed = await this.scripts.renew(entry.keys, epoch);
    if (entry.leaseEpoch !== epoch) {
      // Fenced while the renewal was on its way: the epoch is given up, so is the lease.
      if (renewed) await this.scripts.release(entry.keys, epoch);
      return;
    }
    if (renewed) entry.leaseUntil = this.leaseDeadline(sentAt);
    else this.lost(entry);
  }

  private async yieldTo(entry: WantedTopic): Promise<void> {
    this.host.relay(entry.state);
    entry.buffered ??= [];
    await this.startRelay(entry).catch((error: unknown) => {
      entry.buffered = undefined; // on success the relay flushed it (a read-back may have started a new one)
      throw error;
    });
  }

  private took(entry: WantedTopic, epoch: string, sentAt: number): void {
    entry.leaseEpoch = epoch;
    entry.leaseUntil = this.leaseDeadline(sentAt);
    this.metrics.leaseChanges.inc({ change: 'acquired' });
  }

  /** Redis started the lease's clock after `sentAt`; two watch periods of margin for the check itself. */
  private leaseDeadline(sentAt: number): number {
    return sentAt + this.options.leaseMs - 2 * this.options.watchEveryMs;
  }

  private lost(entry: WantedTopic): void {
    entry.leaseEpoch = undefined;
    entry.heardAt = performance.now();
    this.metrics.leaseChanges.inc({ change: 'lost' });
    this.host.relay(entry.state);
  }

  private async releaseLease(entry: WantedTopic): Promise<void> {
    const epoch = entry.leaseEpoch;
    if (epoch === undefined) return;
    entry.leaseEpoch = undefined;
    await this.scripts.release(entry.keys, epoch).catch(() => undefined); // it lapses by itself otherwise
  }

  private allowResync(topic: string): boolean {
    const now = this.clock.now();
    if (now - (this.lastResync.get(topic) ?? -Infinity) < this.options.resyncIntervalMs) return false;
    this.lastResync.set(topic, now);
    return true;
  }

  private keysOf(topic: string): TopicKeys {
    const prefix = this.options.keyPrefix;
    const tagged = `${prefix}{${topic}}`;
    return {
      lease: `${tagged}:lease`,
      state: `${tagged}:state`,
      log: `${tagged}:log`,
      checkpoint: `${tagged}:checkpoint`,
      channel: `${tagged}:frames`,
    };
  }
}

/** The logged frames of `epoch` after `seq`, oldest first, with their seq. */
function framesAfter(logged: Buffer[], epoch: string, seq: number): { payload: Buffer; seq: number }[] {
  const frames = logged.map((payload) => ({
    payload,
    frame: JSON.parse(payload.toString()) as { epoch: string; seq: number },
  }));
  return frames
    .filter(({ frame }) => frame.epoch === epoch && frame.seq > seq)
    .map(({ payload, frame }) => ({ payload, seq: frame.seq }));
}

/** `hb:<epoch>:<seq>`, published by the renew script; frames are JSON objects. */
function isHeartbeat(payload: Buffer): boolean {
  return payload[0] === 0x68 && payload[1] === 0x62 && payload[2] === 0x3a; // 'hb:'
}
