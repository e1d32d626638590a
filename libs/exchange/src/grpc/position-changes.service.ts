import { Inject, Injectable } from '@nestjs/common';
import { ExchangeTokenProvider } from '@lib/auth';
import { Clock, GATEWAY_CONFIG, type GatewayConfig, MetricsRegistry } from '@lib/core';
import { type TopicPolicy, type TopicSink, type TopicSource, UnknownTopicError } from '@lib/fanout';

import { type PositionChange, type PositionsSnapshot, type PositionsUpdate, applyPositionChanges, foldingPolicy } from './firm-state.messages.js';
import { ResumableFeed, type ResumableFeedSpec } from './resumable-feed.js';

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
export const EXCHANGE_POSITIONS_POLICY: TopicPolicy = foldingPolicy(applyPositionChanges);

/** The one CreatePositionChangeSubscription call of this instance (firm-scoped, `symbols=[]`). */
@Injectable()
export class PositionChangeFeed extends ResumableFeed {
  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig, tokens: ExchangeTokenProvider, registry: MetricsRegistry, clock: Clock) {
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
  private readonly router: TopicSink = {
    // The call's opening snapshot is empty: positions are folded from the changes that follow.
    snapshot: () => undefined,
    update: (payload) => this.changed((payload as PositionsUpdate).positionChanges),
    gap: () => this.live.forEach((sink) => sink.gap()),
  };

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
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

  close(topic: string): void {
    const participant = participantOf(topic);
    this.sinks.delete(participant);
    this.live.delete(participant);
    if (this.sinks.size > 0) return;
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
      this.state.set(account, applyPositionChanges(this.state.get(account) ?? { positions: [] }, update));
      this.live.get(account)?.update(update);
    }
  }
}

function participantOf(topic: string): string {
  return topic.startsWith(EXCHANGE_POSITIONS_PREFIX) ? topic.slice(EXCHANGE_POSITIONS_PREFIX.length) : '';
}
