import { Inject, Injectable } from '@nestjs/common';
import { ExchangeTokenProvider } from '@lib/auth';
import { Clock, GATEWAY_CONFIG, MetricsRegistry } from '@lib/core';
import { type TopicPolicy, type TopicSink, type TopicSource, UnknownTopicError } from '@lib/fanout';

import {
  type PositionChange,
  type PositionRecord,
  type PositionsSnapshot,
  type PositionsUpdate,
  applyPositionChanges,
  latestBySymbolPolicy,
} from './firm-state.messages.js';
import { ResumableFeed, type ResumableFeedSpec } from './resumable-feed.js';
import type { ExchangeConfigView } from '../config/exchange.config.js';

export const EXCHANGE_POSITIONS_PREFIX = 'exchange.positions.';

/**
 * The firm's position changes, replayed from the start of the exchange's retained log on every open
 * (`resume_time` 0): the topics' state is folded from changes, so it is rebuilt rather than resumed
 * from a stored token, which would leave out every position changed before it. A change delivered
 * twice (at least once) is the same record byte for byte.
 */
export const POSITIONS_SPEC: ResumableFeedSpec = {
  topic: 'exchange.positions',
  kind: 'positions',
  call: 'CreatePositionChangeSubscription',
  records: 'positionChanges',
  key: (change) => JSON.stringify(change),
  replayFromMs: 0,
};

/** The snapshot is the latest position per symbol, folded from every change. */
export const EXCHANGE_POSITIONS_POLICY: TopicPolicy = latestBySymbolPolicy<PositionRecord>('positions', (update) =>
  (update as PositionsUpdate).positionChanges.map((change) => change.position),
);

/**
 * A listener the gateway itself holds the feed for (the risk checks' net positions), whether or not a
 * `/ws` topic is open: `positions` with a participant's whole folded state after each change, `known`
 * once the call has delivered its first batch (the replay from the retained log), `lost` when the call
 * could not be opened or its state may miss changes (a resync): the holder treats positions as unknown.
 */
export interface PositionHolder {
  known(state: ReadonlyMap<string, PositionsSnapshot>): void;
  positions(participant: string, snapshot: PositionsSnapshot): void;
  lost(reason: string): void;
}

/** A held feed that could not be opened is tried again after this long. */
const HOLD_RETRY_MS = 1_000;

/** The one CreatePositionChangeSubscription call of this instance (firm-scoped, `symbols=[]`). */
@Injectable()
export class PositionChangeFeed extends ResumableFeed {
  constructor(
    @Inject(GATEWAY_CONFIG) config: ExchangeConfigView,
    tokens: ExchangeTokenProvider,
    registry: MetricsRegistry,
    clock: Clock,
  ) {
    super(POSITIONS_SPEC, config, tokens, null, registry, clock);
  }
}

/**
 * The hub's source for `exchange.positions.<participant>` (scope read:dropcopy): ONE position-change
 * call for the firm per instance holding any such topic (like order updates), opened with the first
 * topic and ended with the last, fanned out by the position's account. A topic's snapshot is its
 * latest position per symbol as folded from the replayed and live changes; then one update per
 * upstream batch that changed it.
 */
@Injectable()
export class PositionChanges implements TopicSource {
  private readonly participants: Set<string>;
  /** Topics waiting for the call or holding it; only `live` ones have had their snapshot. */
  private readonly sinks = new Map<string, TopicSink>();
  private readonly live = new Map<string, TopicSink>();
  private state = new Map<string, PositionsSnapshot>();
  private opening?: Promise<void>;
  private readonly holders = new Set<PositionHolder>();
  private retry?: NodeJS.Timeout;
  private readonly router: TopicSink = {
    // The call's opening snapshot is empty: positions are folded from the changes that follow.
    snapshot: () => undefined,
    update: (payload) => this.changed((payload as PositionsUpdate).positionChanges),
    gap: () => {
      this.live.forEach((sink) => sink.gap());
      this.holders.forEach((holder) => holder.lost('the position feed resynced'));
    },
  };

  constructor(
    @Inject(GATEWAY_CONFIG) config: ExchangeConfigView,
    private readonly feed: PositionChangeFeed,
  ) {
    this.participants = new Set(config.clients.flatMap((client) => client.participants));
  }

  /** Resolves once the participant's positions reached `sink`. */
  async open(topic: string, sink: TopicSink): Promise<void> {
    const participant = participantOf(topic);
    if (!this.participants.has(participant)) throw new UnknownTopicError(topic);
    this.sinks.set(participant, sink);
    try {
      await (this.opening ??= this.start());
    } catch (error) {
      if (this.sinks.get(participant) === sink) this.close(topic);
      throw error;
    }
    if (this.sinks.get(participant) !== sink) return;
    sink.snapshot(this.state.get(participant) ?? { positions: [] });
    this.live.set(participant, sink);
  }

  /** Holds the call open for `holder` (opened now if no topic has it); returns the function that lets it go. */
  hold(holder: PositionHolder): () => void {
    this.holders.add(holder);
    void this.held(holder);
    return () => {
      this.holders.delete(holder);
      if (this.holders.size > 0 || this.sinks.size > 0) return;
      clearTimeout(this.retry);
      this.stopFeed();
    };
  }

  private async held(holder: PositionHolder): Promise<void> {
    try {
      await (this.opening ??= this.start());
      if (this.holders.has(holder)) holder.known(this.state);
    } catch (error) {
      if (!this.holders.has(holder)) return;
      holder.lost(`the position feed did not open (${(error as Error).message})`);
      clearTimeout(this.retry);
      this.retry = setTimeout(() => void this.held(holder), HOLD_RETRY_MS);
      this.retry.unref();
    }
  }

  close(topic: string): void {
    const participant = participantOf(topic);
    this.sinks.delete(participant);
    this.live.delete(participant);
    if (this.sinks.size > 0 || this.holders.size > 0) return;
    this.stopFeed();
  }

  private stopFeed(): void {
    this.opening = undefined;
    this.state = new Map();
    this.feed.close(POSITIONS_SPEC.topic);
  }

  private async start(): Promise<void> {
    this.state = new Map();
    try {
      await this.feed.open(POSITIONS_SPEC.topic, this.router);
    } catch (error) {
      this.opening = undefined;
      throw error;
    }
  }

  private changed(changes: PositionChange[]): void {
    const byAccount = new Map<string, PositionChange[]>();
    for (const change of changes) {
      const account = change.position?.account;
      if (this.participants.has(account)) byAccount.set(account, [...(byAccount.get(account) ?? []), change]);
    }
    for (const [account, positionChanges] of byAccount) {
      const update: PositionsUpdate = { positionChanges };
      const folded = applyPositionChanges(this.state.get(account) ?? { positions: [] }, update);
      this.state.set(account, folded);
      this.live.get(account)?.update(update);
      this.holders.forEach((holder) => holder.positions(account, folded));
    }
  }
}

function participantOf(topic: string): string {
  return topic.startsWith(EXCHANGE_POSITIONS_PREFIX) ? topic.slice(EXCHANGE_POSITIONS_PREFIX.length) : '';
}
