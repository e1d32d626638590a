import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type Clock, SystemClock } from '@lib/core';
import { Registry } from 'prom-client';
import type { WebSocket } from 'ws';

import { MemoryStreamLedger } from '../capacity/memory.stream-ledger.js';
import { RedisStreamLedger } from '../capacity/redis.stream-ledger.js';
import { registerStreamCapacityMetrics } from '../capacity/stream-capacity.metrics.js';
import type { PoolUsage, StreamHolder, StreamLedger } from '../capacity/stream-capacity.types.js';
import { HubClient, type HubClientOptions } from '../client/hub.client.js';
import type { TopicCoordinator, TopicHost } from '../cluster/coordinator.types.js';
import { RedisCoordinator } from '../cluster/redis.coordinator.js';
import { StreamCapacityError } from '../fanout.error.js';
import { DEFAULT_CLIENT_OPTIONS, DEFAULT_LINGER_MS, type FanoutHubOptions, clusterOptions } from '../fanout.options.js';
import { FanoutMetrics } from '../metrics/fanout.metrics.js';
import type { TopicRoute, TopicSourceRegistry } from '../source/topic-source.registry.js';
import type { Viewer } from '../source/topic-source.types.js';
import type { RecordedState } from '../cluster/lease.scripts.js';
import { newEpoch } from './epoch.js';
import { type FrameMessage, type WireFrame, decodeRelayed, encodeFrame } from './frame.codec.js';
import type { TopicState } from './topic.state.js';
import { TopicTable } from './topic.table.js';
import { UpstreamLink } from './upstream.link.js';

/** The last frame a client received of a topic; without `epoch` (the older numeric form) it cannot be placed. */
export interface ResumePoint {
  epoch?: string;
  seq: number;
}

export interface SubscribeOptions {
  /** The client gets exactly the frames after it, when this instance holds them in that epoch, or a `resync`. */
  resumeFrom?: ResumePoint;
}

export interface TopicInfo {
  mode: TopicState['mode'];
  epoch: string;
  seq: number;
  subscribers: number;
}

/**
 * The topic hub: one upstream subscription per topic however many clients want it (one per
 * cluster with Redis), frames numbered and serialized once per topic, written to every client
 * without waiting for any of them.
 */
export class FanoutHub implements OnApplicationBootstrap, OnModuleDestroy, TopicHost {
  private readonly logger = new Logger(FanoutHub.name);
  /** Each connected client and the topics it is subscribed to. */
  private readonly clients = new Map<HubClient, Set<TopicState>>();
  private readonly topics: TopicTable;
  private readonly sources: TopicSourceRegistry;
  private readonly clock: Clock;
  private readonly metrics: FanoutMetrics;
  private readonly upstream: UpstreamLink;
  private readonly coordinator: TopicCoordinator | undefined;
  private readonly clientOptions: HubClientOptions;
  private readonly ledger: StreamLedger | undefined;

  constructor(options: FanoutHubOptions) {
    this.sources = options.sources;
    this.clock = options.clock ?? new SystemClock();
    this.clientOptions = { ...DEFAULT_CLIENT_OPTIONS, ...options.client };
    const registry = options.registry ?? new Registry();
    const cluster = clusterOptions(options.cluster);
    this.metrics = new FanoutMetrics(registry, () => [...this.clients.keys()].map((client) => client.queuedBytes));
    const coordinator = (this.coordinator = options.redis
      ? new RedisCoordinator(options.redis, this, this.metrics, cluster, this.clock)
      : undefined);
    const lastCheckpoint = coordinator && ((state: TopicState) => coordinator.checkpoint(state));
    this.upstream = new UpstreamLink(
      this.metrics,
      (state, kind, payload, checkpoint) => this.fromUpstream(state, kind, payload, checkpoint),
      (state, error) => this.endedUpstream(state, error),
      lastCheckpoint,
    );
    this.topics = new TopicTable(options.lingerMs ?? DEFAULT_LINGER_MS, (state) => void this.teardown(state));
    const capacity = options.capacity;
    if (capacity) {
      this.ledger = options.redis
        ? new RedisStreamLedger(options.redis, capacity, cluster.keyPrefix, cluster.instanceId)
        : new MemoryStreamLedger(capacity.pools);
      registerStreamCapacityMetrics(registry, () => this.streamUsage());
    }
  }

  /** Adopts an open server-side WebSocket; the hub forgets it when it closes. */
  connect(ws: WebSocket, options: Partial<HubClientOptions> = {}, holder?: StreamHolder, viewer?: Viewer): HubClient {
    const client = new HubClient(
      ws,
      { ...this.clientOptions, ...options },
      this.metrics,
      (gone) => this.forget(gone),
      holder,
      viewer,
    );
    this.clients.set(client, new Set());
    this.metrics.clients.inc();
    return client;
  }

  /**
   * Subscribes a client; resolves once it has its first frames (cached snapshot, or the missed frames
   * for `resumeFrom`). Rejects with `UnknownTopicError`, `StreamCapacityError` when a stream cap refuses
   * the topic, or when the upstream subscription fails.
   */
  async subscribe(client: HubClient, topic: string, options: SubscribeOptions = {}): Promise<void> {
    const route = this.sources.resolve(topic);
    if (this.topics.get(topic)?.subscribers.has(client)) return;
    // Claimed before the topic is wanted: a refused topic never opens upstream.
    const leave = await this.claim(client, topic, route);
    let joined = false;
    try {
      joined = await this.join(client, topic, route, options.resumeFrom);
    } finally {
      if (!joined) leave();
    }
  }

  unsubscribe(client: HubClient, topic: string): void {
    const state = this.topics.get(topic);
    if (state) this.detach(client, state);
  }

  info(topic: string): TopicInfo | undefined {
    const state = this.topics.get(topic);
    return state && { mode: state.mode, epoch: state.epoch, seq: state.seq, subscribers: state.subscribers.size };
  }

  /** Upstream streams in use per capacity pool, cluster-wide; empty when no pool is configured. */
  streamUsage(): Promise<PoolUsage[]> {
    return this.ledger?.usage() ?? Promise.resolve([]);
  }

  /** Closes every upstream subscription and releases leases; connected clients are left to their server. */
  async close(): Promise<void> {
    await Promise.all(this.topics.all().map((state) => this.teardown(state)));
    await this.coordinator?.close();
    await this.ledger?.close();
  }

  /**
   * Resolves once the cluster's pub/sub connection is up (at once without Redis), or after its bound
   * (about 2 s) when Redis does not answer; never rejects. The gateway listens only after it: a topic asked
   * of an instance before then would be held by it, a second upstream stream beside the holder's.
   */
  ready(): Promise<void> {
    return this.coordinator?.ready() ?? Promise.resolve();
  }

  onApplicationBootstrap(): Promise<void> {
    return this.ready();
  }

  onModuleDestroy(): Promise<void> {
    return this.close();
  }

  // --- TopicHost: what the cluster coordinator drives ---

  async hold(state: TopicState, seq: number, epoch: string, published: readonly Buffer[] = []): Promise<void> {
    if (state.mode === 'closed') return;
    if (state.mode === 'relay') this.metrics.relayedTopics.dec();
    this.upstream.close(state);
    state.seq = Math.max(state.seq, seq);
    const delivered = state.deliveredUpdates(published);
    state.beginEpoch(epoch);
    state.mode = 'holder';
    try {
      await this.upstream.open(state, delivered);
    } catch (error) {
      this.upstream.close(state);
      throw error;
    }
  }

  relay(state: TopicState): void {
    if (state.mode === 'closed' || state.mode === 'relay') return;
    this.upstream.close(state);
    state.mode = 'relay';
    this.metrics.relayedTopics.inc();
  }

  /**
   * A relay starts from the state the holder recorded. A folded topic's record may be a few updates
   * older than the seq it reached (TopicState.recordDue): those updates are folded in from the topic's
   * log (`logged`); when the log lacks one, the relay starts without a state and asks for a resync.
   */
  seed(state: TopicState, recorded: RecordedState, logged: readonly Buffer[] = []): void {
    let snapshot = recorded.snapshot ? (JSON.parse(recorded.snapshot) as FrameMessage) : undefined;
    let updates: unknown[] = [];
    if (snapshot && state.route.policy.fold && snapshot.seq < recorded.seq) {
      const missing = updatesBetween(logged, snapshot.epoch, snapshot.seq, recorded.seq);
      if (missing) updates = missing;
      else {
        snapshot = undefined;
        this.relayGap(state);
      }
    }
    const replaced = state.seed({ snapshot, updates, seq: recorded.seq, epoch: recorded.epoch });
    this.relay(state);
    const resync = replaced ? state.stateFrame('resync') : undefined;
    if (resync) this.dispatch(state, resync, 'relay');
  }

  relayed(state: TopicState, payload: Buffer): void {
    let decoded: { frame: WireFrame; message: FrameMessage };
    try {
      decoded = decodeRelayed(payload, (sentAt) => performance.now() - Math.max(0, this.clock.now() - sentAt));
    } catch {
      return this.logger.warn(`Ignored an unreadable relayed frame on ${state.name}`);
    }
    let { frame } = decoded;
    const { message } = decoded;
    if (message.epoch !== state.epoch) {
      // A new holding: clients may only enter it through its state, never through an update.
      if (message.type === 'update') return this.relayGap(state);
      if (state.adopt(message.epoch) && message.type === 'snapshot')
        frame = encodeFrame({ ...message, type: 'resync' }, frame.receivedAt);
    } else if (message.seq <= state.seq) {
      return; // already had it
    } else if (message.type === 'update' && state.seq > 0 && message.seq > state.seq + 1) {
      if (this.coordinator?.recover(state, payload)) return this.metrics.relayGaps.inc(); // it relays the missed frames first, then this one
      this.relayGap(state);
    }
    state.applyRelayed(frame, message, this.clock.now());
    this.dispatch(state, frame, 'relay');
  }

  reopen(state: TopicState, epoch?: string): void {
    if (state.mode !== 'holder') return;
    this.upstream.close(state);
    const delivered = state.deliveredUpdates();
    if (epoch === undefined) state.gapPending = true;
    else state.beginEpoch(epoch);
    this.upstream.open(state, delivered).catch((error: unknown) => {
      // A topic closed meanwhile (its last client left, or the hub shut down) fails its reopen by design.
      if (state.mode !== 'closed') this.logger.warn(`Reopening ${state.name} upstream failed: ${String(error)}`);
    });
  }

  // --- internals ---

  /** Takes the client's holding of a pooled topic; the returned function gives it back. */
  private async claim(client: HubClient, topic: string, route: TopicRoute): Promise<() => void> {
    const capacity = route.policy.capacity;
    const { ledger } = this;
    const holder = client.holder;
    if (!capacity || !ledger || !holder) return () => undefined;
    const outcome = await ledger.claim(capacity.pool, capacity.kind, topic, holder);
    if (!outcome.granted) throw new StreamCapacityError(topic, outcome.cap, outcome.limit);
    return () => ledger.leave(capacity.pool, topic, holder.client);
  }

  /** `true` once the client is a subscriber; `false` when it left or the topic closed meanwhile. */
  private async join(
    client: HubClient,
    topic: string,
    route: TopicRoute,
    resumeFrom: ResumePoint | undefined,
  ): Promise<boolean> {
    const state = this.topics.want(topic, route, (created) => this.activate(created));
    if (state.subscribers.has(client)) return false;
    state.joining += 1;
    try {
      await state.ready;
    } finally {
      state.joining -= 1;
    }
    if (!client.isOpen || state.mode === 'closed' || state.subscribers.has(client)) {
      this.topics.lingerIfIdle(state);
      return false;
    }
    for (const frame of this.initialFrames(state, resumeFrom)) {
      if (deliver(client, frame, state)) this.metrics.messagesOut.inc();
    }
    state.subscribers.add(client);
    this.clients.get(client)?.add(state);
    this.metrics.subscriptions.inc({ family: state.route.prefix });
    return true;
  }

  private async activate(state: TopicState): Promise<void> {
    try {
      if (this.coordinator) await this.coordinator.join(state);
      else await this.hold(state, 0, newEpoch());
    } catch (error) {
      void this.teardown(state);
      throw error;
    }
  }

  private relayGap(state: TopicState): void {
    this.metrics.relayGaps.inc();
    this.coordinator?.requestResync(state);
  }

  private fromUpstream(state: TopicState, kind: 'snapshot' | 'update', payload: unknown, checkpoint?: string): void {
    if (kind === 'update' && state.awaitingState) return; // the new epoch's first snapshot will hold it
    const frame = state.emit(kind, payload, this.clock.now(), performance.now());
    // Publish first: other instances then fan out while this one writes its own sockets.
    if (this.coordinator)
      this.coordinator.publish(state, frame.json, frame.seq, state.recordDue(frame)?.json ?? '', checkpoint);
    this.dispatch(state, frame, 'upstream');
  }

  /**
   * The source gave the topic up: every subscriber is told, in the /ws protocol's error message (code
   * `upstream_failed`, as a refused subscribe is answered, then its onTopicEnded: the topic no longer
   * counts against its connection's bounds), and the topic closes.
   */
  private endedUpstream(state: TopicState, error: Error): void {
    const message = { type: 'error', code: 'upstream_failed', topic: state.name, message: error.message };
    for (const client of state.subscribers) {
      client.sendJson(message);
      client.onTopicEnded?.(state.name);
    }
    void this.teardown(state);
  }

  /** The broadcast loop: one comparison and at most one socket write per client, never a wait. */
  private dispatch(state: TopicState, frame: WireFrame, origin: 'upstream' | 'relay'): void {
    this.metrics.messagesIn.seriesOf(origin).inc();
    let written = 0;
    for (const client of state.subscribers) {
      if (deliver(client, frame, state)) written += 1;
    }
    this.metrics.broadcast(frame, written);
  }

  /** A resume point of another epoch (or of none) says nothing about this numbering: the client gets the state. */
  private initialFrames(state: TopicState, resumeFrom: ResumePoint | undefined): WireFrame[] {
    if (resumeFrom === undefined) return optional(state.stateFrame('snapshot'));
    // Seq 0 without an epoch asks for the current epoch's window from its start: a client that holds
    // nothing cannot mix numberings (drop copy has no snapshot, so that is how its backlog is read).
    const fromStart = resumeFrom.seq === 0 && resumeFrom.epoch === undefined;
    if (resumeFrom.epoch !== state.epoch && !fromStart) return optional(state.stateFrame('resync'));
    if (resumeFrom.seq === state.seq && state.seq > 0) return [];
    return state.replayAfter(resumeFrom.seq, this.clock.now()) ?? optional(state.stateFrame('resync'));
  }

  private detach(client: HubClient, state: TopicState): void {
    if (!state.subscribers.delete(client)) return;
    this.clients.get(client)?.delete(state);
    this.metrics.subscriptions.dec({ family: state.route.prefix });
    const capacity = state.route.policy.capacity;
    if (capacity && client.holder) this.ledger?.leave(capacity.pool, state.name, client.holder.client);
    this.topics.lingerIfIdle(state);
  }

  private forget(client: HubClient): void {
    const topics = this.clients.get(client);
    if (!topics) return;
    this.clients.delete(client);
    this.metrics.clients.dec();
    for (const state of topics) this.detach(client, state);
  }

  /** Resolves once the cluster let go of the topic (lease released); local effects are immediate. */
  private async teardown(state: TopicState): Promise<void> {
    if (state.mode === 'closed') return;
    if (state.mode === 'relay') this.metrics.relayedTopics.dec();
    this.upstream.close(state);
    state.mode = 'closed';
    for (const client of state.subscribers) this.detach(client, state);
    this.topics.remove(state);
    // The upstream stream is closed here: its capacity goes back to the pool.
    const capacity = state.route.policy.capacity;
    if (capacity) this.ledger?.release(capacity.pool, state.name);
    await this.coordinator?.leave(state).catch(() => undefined);
  }
}

/** The frame as this client may see it: narrowed by the family's view when the client has a viewer. */
function deliver(client: HubClient, frame: WireFrame, state: TopicState): boolean {
  if (!client.viewer || !state.route.policy.view) return client.deliver(frame, state);
  return client.deliver(state.viewed(frame, client.viewer), state.narrowed);
}

function optional(frame: WireFrame | undefined): WireFrame[] {
  return frame ? [frame] : [];
}

/**
 * The data of the logged updates of `epoch` numbered after `from` up to `to`, in order; undefined when
 * the log lacks one of them (trimmed, expired, unreadable).
 */
function updatesBetween(logged: readonly Buffer[], epoch: string, from: number, to: number): unknown[] | undefined {
  const updates: unknown[] = [];
  let next = from + 1;
  for (const payload of logged) {
    let message: FrameMessage;
    try {
      message = JSON.parse(payload.toString()) as FrameMessage;
    } catch {
      return undefined;
    }
    if (message.epoch !== epoch || message.seq < next || message.seq > to) continue;
    if (message.seq !== next || message.type !== 'update') return undefined;
    updates.push(message.data);
    next++;
  }
  return next === to + 1 ? updates : undefined;
}
