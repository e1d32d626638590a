import { Logger } from '@nestjs/common';
import type { RedisClient } from '@lib/core';

import type { TopicState } from '../hub/topic.state.js';
import type { FanoutMetrics } from '../metrics/fanout.metrics.js';
import type { TopicCoordinator, TopicHost } from './coordinator.types.js';
import { LeaseScripts, type TopicKeys } from './lease.scripts.js';
import { RelaySubscriber } from './relay.subscriber.js';

export interface ClusterOptions {
  keyPrefix: string;
  instanceId: string;
  /** A dead holder's lease lapses after this long; a live one renews it every `renewEveryMs`. */
  leaseMs: number;
  renewEveryMs: number;
  /** How long the recorded seq and snapshot of a topic outlive its last frame. */
  stateTtlMs: number;
  /** At most one resync request per topic in this interval (a relay gap must not hammer the upstream). */
  resyncIntervalMs: number;
}

interface WantedTopic {
  state: TopicState;
  keys: TopicKeys;
  buffered?: Buffer[];
}

/**
 * Holds each topic once per cluster: a Redis lease per topic, frames published by the holder on a
 * channel per topic and relayed by the other instances. Instances that want a topic keep trying to
 * take its lease, so a dead holder is replaced within about `leaseMs + renewEveryMs`.
 */
export class RedisCoordinator implements TopicCoordinator {
  private readonly logger = new Logger('FanoutCluster');
  private readonly scripts: LeaseScripts;
  private readonly subscriber: RelaySubscriber;
  /** Wanted topics by channel; `buffered` holds frames that arrive while a relay is being seeded. */
  private readonly wanted = new Map<string, WantedTopic>();
  private readonly held = new Set<string>();
  private readonly lastResync = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private ticking = false;

  constructor(
    redis: RedisClient,
    private readonly host: TopicHost,
    private readonly metrics: FanoutMetrics,
    private readonly options: ClusterOptions,
  ) {
    this.scripts = new LeaseScripts(redis, options.instanceId, options.leaseMs, options.stateTtlMs);
    this.subscriber = new RelaySubscriber(redis, `${options.keyPrefix}resync`, {
      frame: (channel, payload) => this.onFrame(channel, payload),
      resync: (topic) => this.onResyncRequest(topic),
    });
    this.timer = setInterval(() => void this.tick(), options.renewEveryMs).unref();
  }

  async join(state: TopicState): Promise<void> {
    const entry: WantedTopic = { state, keys: this.keysOf(state.name), buffered: [] };
    this.wanted.set(entry.keys.channel, entry);
    let seq: number;
    let recorded: { seq: number; snapshot: string | undefined } | undefined;
    try {
      // Subscribe before reading the recorded state, so no frame falls between the two.
      await this.subscriber.subscribe(entry.keys.channel);
      seq = await this.scripts.acquire(entry.keys);
      if (seq < 0) recorded = await this.scripts.state(entry.keys);
    } catch (error) {
      // Redis is unreachable: serve local clients from a local upstream; the tick reconciles later.
      this.logger.warn(`Redis unavailable for topic ${state.name}, holding it locally: ${String(error)}`);
      entry.buffered = undefined;
      return this.host.hold(state, state.seq);
    }
    if (recorded) return this.startRelay(entry, recorded);
    if (this.wanted.get(entry.keys.channel) !== entry) return void (await this.scripts.release(entry.keys).catch(() => undefined)); // closed meanwhile
    this.held.add(state.name);
    this.metrics.leaseChanges.inc({ change: 'acquired' });
    entry.buffered = undefined;
    await this.host.hold(state, seq).catch(async (error: unknown) => {
      await this.releaseLease(entry.keys, state.name);
      throw error;
    });
  }

  async leave(state: TopicState): Promise<void> {
    const keys = this.keysOf(state.name);
    if (this.wanted.get(keys.channel)?.state !== state) return;
    this.wanted.delete(keys.channel);
    this.lastResync.delete(state.name);
    await Promise.all([this.subscriber.unsubscribe(keys.channel), this.releaseLease(keys, state.name)]);
  }

  publish(state: TopicState, frameJson: string, seq: number, snapshotJson: string): void {
    if (!this.held.has(state.name)) return;
    this.scripts.publish(this.keysOf(state.name), seq, frameJson, snapshotJson).then(
      (published) => {
        if (!published && this.held.delete(state.name)) this.lost(state);
      },
      // Relays see the missing seq and ask for a resync once Redis answers again.
      () => undefined,
    );
  }

  requestResync(state: TopicState): void {
    if (!this.allowResync(state.name)) return;
    this.subscriber.requestResync(state.name).catch(() => this.lastResync.delete(state.name));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const held = [...this.wanted.values()].filter((entry) => this.held.has(entry.state.name));
    await Promise.all(held.map((entry) => this.releaseLease(entry.keys, entry.state.name)));
    this.wanted.clear();
    await this.subscriber.close();
  }

  private startRelay(entry: WantedTopic, recorded: { seq: number; snapshot: string | undefined }): void {
    this.host.seed(entry.state, recorded.snapshot, recorded.seq);
    const buffered = entry.buffered ?? [];
    entry.buffered = undefined;
    for (const payload of buffered) this.host.relayed(entry.state, payload);
  }

  private onFrame(channel: string, payload: Buffer): void {
    const entry = this.wanted.get(channel);
    if (!entry) return;
    if (entry.buffered) entry.buffered.push(payload);
    else if (entry.state.mode === 'relay') this.host.relayed(entry.state, payload);
  }

  private onResyncRequest(topic: string): void {
    const entry = this.wanted.get(this.keysOf(topic).channel);
    if (entry && this.held.has(topic) && entry.state.mode === 'holder' && this.allowResync(topic)) this.host.reopen(entry.state);
  }

  /** Renews held leases, tries to take the others, and re-subscribes channels Redis refused earlier. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await Promise.all([...this.wanted.values()].map((entry) => this.reconcile(entry.state, entry.keys).catch(() => undefined)));
    } finally {
      this.ticking = false;
    }
  }

  private async reconcile(state: TopicState, keys: TopicKeys): Promise<void> {
    if (state.mode === 'joining' || state.mode === 'closed') return;
    await this.subscriber.subscribe(keys.channel);
    if (this.held.has(state.name)) {
      if (!(await this.scripts.renew(keys)) && this.held.delete(state.name)) this.lost(state);
      return;
    }
    const seq = await this.scripts.acquire(keys);
    if (seq < 0) {
      if (state.mode === 'holder') this.host.relay(state); // a local hold from a Redis outage yields
      return;
    }
    if (this.wanted.get(keys.channel)?.state !== state) return void (await this.scripts.release(keys));
    this.held.add(state.name);
    this.metrics.leaseChanges.inc({ change: 'acquired' });
    if (state.mode === 'holder') {
      // Held locally through an outage, maybe by others too: restart the seq past everyone's with a resync.
      state.seq = Math.max(state.seq, seq);
      return this.host.reopen(state);
    }
    await this.host.hold(state, seq).catch(async (error: unknown) => {
      this.logger.warn(`Could not take over topic ${state.name}: ${String(error)}`);
      this.host.relay(state);
      await this.releaseLease(keys, state.name);
    });
  }

  private lost(state: TopicState): void {
    this.metrics.leaseChanges.inc({ change: 'lost' });
    this.host.relay(state);
  }

  private async releaseLease(keys: TopicKeys, topic: string): Promise<void> {
    if (!this.held.delete(topic)) return;
    await this.scripts.release(keys).catch(() => undefined); // it lapses by itself otherwise
  }

  private allowResync(topic: string): boolean {
    const now = Date.now();
    if (now - (this.lastResync.get(topic) ?? -Infinity) < this.options.resyncIntervalMs) return false;
    this.lastResync.set(topic, now);
    return true;
  }

  private keysOf(topic: string): TopicKeys {
    const prefix = this.options.keyPrefix;
    return { lease: `${prefix}{${topic}}:lease`, state: `${prefix}{${topic}}:state`, channel: `${prefix}frames:${topic}` };
  }
}
