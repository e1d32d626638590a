import type { FanoutMetrics } from '../metrics/fanout.metrics.js';
import type { TopicSink } from '../source/topic-source.types.js';
import type { TopicState } from './topic.state.js';

type UpstreamEvent = (state: TopicState, kind: 'snapshot' | 'update', payload: unknown, checkpoint?: string) => void;

/** Opens and closes a topic's upstream subscription, and ignores whatever a closed one still sends. */
export class UpstreamLink {
  private readonly opened = new Set<TopicState>();

  constructor(
    private readonly metrics: FanoutMetrics,
    private readonly onEvent: UpstreamEvent,
    /** The source gave the topic up for good (TopicSink.end). */
    private readonly onEnd: (state: TopicState, error: Error) => void,
    /** The cluster's stored checkpoint of a topic (TopicSink.lastCheckpoint); absent without a cluster. */
    private readonly lastCheckpoint?: (state: TopicState) => Promise<string | undefined>,
  ) {}

  /** `delivered`: what the topic's clients on this instance already have (TopicSink.delivered). */
  open(state: TopicState, delivered: readonly unknown[] = []): Promise<void> {
    const generation = ++state.upstreamGeneration;
    const live = () => state.upstreamGeneration === generation && state.mode === 'holder';
    const lastCheckpoint = this.lastCheckpoint;
    const sink: TopicSink = {
      snapshot: (payload) => {
        if (live()) this.onEvent(state, 'snapshot', payload);
      },
      update: (payload, checkpoint) => {
        if (live()) this.onEvent(state, 'update', payload, checkpoint);
      },
      gap: () => {
        if (live()) state.gapPending = true;
      },
      end: (error) => {
        if (live()) this.onEnd(state, error);
      },
      delivered,
      lastCheckpoint: lastCheckpoint && (() => lastCheckpoint(state)),
    };
    this.opened.add(state);
    this.metrics.upstreamSubscriptions.inc();
    try {
      return Promise.resolve(state.route.source.open(state.name, sink));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  close(state: TopicState): void {
    state.upstreamGeneration += 1;
    if (!this.opened.delete(state)) return;
    this.metrics.upstreamSubscriptions.dec();
    try {
      state.route.source.close(state.name);
    } catch {
      // A source failing to close has nothing left to tell us: its sink is already disconnected.
    }
  }
}
