import type { TopicState } from '../hub/topic.state.js';
import type { RecordedState } from './lease.scripts.js';

/** What the cluster coordinator asks of the hub; the hub alone touches sources and clients. */
export interface TopicHost {
  /**
   * Become the holder under `epoch`: open upstream, number on after `seq`, and send the next snapshot as
   * `resync`. `published`: frames the cluster published of the topic (its log), which clients already have.
   */
  hold(state: TopicState, seq: number, epoch: string, published?: readonly Buffer[]): Promise<void>;
  /** Stop holding (the lease is gone): close upstream and relay the new holder's frames. */
  relay(state: TopicState): void;
  /** Seed a relaying topic from the holder's recorded state; a new epoch goes to clients as `resync`. */
  seed(state: TopicState, recorded: RecordedState, logged?: readonly Buffer[]): void;
  /** A frame published by the holder, exactly as it was published. */
  relayed(state: TopicState, payload: Buffer): void;
  /** Get a fresh upstream snapshot out as `resync`: in the same epoch, or in a new one when given. */
  reopen(state: TopicState, epoch?: string): void;
}

/** How a topic is coordinated across instances; without Redis the hub has none and holds every topic. */
export interface TopicCoordinator {
  /** Resolves once the cluster pub/sub is up, or has been given its time (never rejects). */
  ready(): Promise<void>;
  join(state: TopicState): Promise<void>;
  leave(state: TopicState): Promise<void>;
  /** `checkpoint` (TopicSink.update) is stored with the frame, in the same step, only if the frame is published. */
  publish(state: TopicState, frameJson: string, seq: number, snapshotJson: string, checkpoint?: string): void;
  /** The checkpoint stored with the last frame published of the topic (TopicSink.lastCheckpoint). */
  checkpoint(state: TopicState): Promise<string | undefined>;
  /** A relay missed frames before `payload`: `true` when it relays them (and then `payload`) itself. */
  recover(state: TopicState, payload?: Buffer): boolean;
  requestResync(state: TopicState): void;
  close(): Promise<void>;
}
