import type { HubClient, QueueTopic } from '../client/hub.client.js';
import type { TopicRoute } from '../source/topic-source.registry.js';
import type { SnapshotFold, Viewer } from '../source/topic-source.types.js';
import { type FrameMessage, type FrameType, type WireFrame, encodeFrame } from './frame.codec.js';
import { ReplayWindow } from './replay.window.js';

/** At most this many updates of a folded topic between two records of its state in the cluster (see `recordDue`). */
export const RECORD_EVERY = 100;

/** A topic without a fold: its state is its last snapshot; updates do not change it. */
function snapshotOnly(): SnapshotFold {
  let state: unknown;
  return { reset: (snapshot) => void (state = snapshot), apply: () => undefined, data: () => state };
}

/**
 * `holder`: this instance runs the upstream subscription (always so without Redis).
 * `relay`: another instance holds it; frames arrive through Redis.
 */
export type TopicMode = 'joining' | 'holder' | 'relay' | 'closed';

/** Everything the hub knows about one topic on this instance: sequence, latest state, subscribers. */
export class TopicState {
  readonly subscribers = new Set<HubClient>();
  readonly conflate: boolean;
  mode: TopicMode = 'joining';
  /**
   * The holding whose numbering clients follow: every holder (cluster lease or local) starts a new one.
   * Within an epoch seq only grows; a new epoch reaches clients only as a `resync`. Empty before any.
   */
  epoch = '';
  /** Seq of the last frame the topic emitted (or relayed); the next frame gets seq + 1. */
  seq = 0;
  /** Set by a source `gap()` and by a takeover: the next snapshot goes out as `resync`. */
  gapPending = false;
  /** A new epoch has no state yet: upstream updates are dropped until its first snapshot, which holds them. */
  awaitingState = false;
  /** Clients waiting for the topic to become ready; they keep it from lingering away. */
  joining = 0;
  ready: Promise<void> = Promise.resolve();
  lingerTimer: NodeJS.Timeout | undefined;
  /** Bumped whenever the upstream subscription is (re)opened or closed, so a stale sink is ignored. */
  upstreamGeneration = 0;

  /**
   * How a narrowed frame waits in a slow client's queue: as it is. (The topic's own catch-up may swap
   * it for the whole state, which a viewer must not get.)
   */
  readonly narrowed: QueueTopic;

  /** The state late joiners get: the last snapshot, with the updates the policy folds in since. */
  private state: SnapshotFold | undefined;
  /** Seq of the last state this holder handed to the cluster's record (see `recordDue`). */
  private recordedSeq = -1;
  /** Each frame narrowed once per viewer key, however many clients share the key. */
  private readonly views = new WeakMap<WireFrame, Map<string, WireFrame>>();
  private lastTs = 0;
  private readonly window: ReplayWindow | undefined;
  private stateFrames: { seq: number; epoch: string; snapshot?: WireFrame; resync?: WireFrame } = {
    seq: -1,
    epoch: '',
  };

  constructor(
    readonly name: string,
    readonly route: TopicRoute,
  ) {
    this.conflate = route.policy.conflate;
    this.window = route.policy.replayWindow ? new ReplayWindow(route.policy.replayWindow) : undefined;
    this.narrowed = { name, conflate: this.conflate, catchUp: (latest) => latest };
  }

  /** `frame` as `viewer` may see it (the family's view policy): same type, topic, epoch, seq and ts. */
  viewed(frame: WireFrame, viewer: Viewer): WireFrame {
    const view = this.route.policy.view;
    if (!view) return frame;
    let byKey = this.views.get(frame);
    if (!byKey) this.views.set(frame, (byKey = new Map()));
    let narrowed = byKey.get(viewer.key);
    if (!narrowed) {
      const message = JSON.parse(frame.json) as FrameMessage;
      narrowed = encodeFrame({ ...message, data: view(message.data, viewer) }, frame.receivedAt);
      byKey.set(viewer.key, narrowed);
    }
    return narrowed;
  }

  /** Turns an upstream event into the topic's next frame, keeping the snapshot current. */
  emit(kind: 'snapshot' | 'update', data: unknown, ts: number, receivedAt: number): WireFrame {
    const type: FrameType = kind === 'update' ? 'update' : this.gapPending ? 'resync' : 'snapshot';
    if (kind === 'snapshot') this.gapPending = this.awaitingState = false;
    const frame = encodeFrame({ type, topic: this.name, epoch: this.epoch, seq: this.seq + 1, ts, data }, receivedAt);
    this.apply(frame, data, ts, ts);
    return frame;
  }

  /** Applies a frame another instance emitted: same seq, same bytes. */
  applyRelayed(frame: WireFrame, message: FrameMessage, now: number): void {
    this.apply(frame, message.data, message.ts, now);
  }

  /**
   * This instance starts holding under `epoch`. When its clients had frames of another epoch, the
   * first snapshot goes out as `resync`, and updates before it are dropped (it holds them); the old
   * epoch's state and replay window are no base for the new numbering.
   */
  beginEpoch(epoch: string): void {
    const replaced = this.epoch !== '';
    this.adopt(epoch);
    this.gapPending = this.awaitingState = replaced;
  }

  /** A relay follows the holder into `epoch`; `true` when its clients held another epoch's state. */
  adopt(epoch: string): boolean {
    const replaced = this.epoch !== '';
    this.epoch = epoch;
    this.state = undefined;
    this.recordedSeq = -1;
    this.window?.clear();
    return replaced;
  }

  /**
   * Seeds a relay from the state the holder stored: its epoch, snapshot and the seq it has reached.
   * `true` when that moved the relay to another epoch with a state its clients must get as `resync`.
   */
  seed(recorded: {
    snapshot: FrameMessage | undefined;
    /** The updates the recorded snapshot lacks, oldest first (the holder records it every few updates). */
    updates?: readonly unknown[];
    seq: number;
    epoch: string | undefined;
  }): boolean {
    const { snapshot, seq, epoch } = recorded;
    if (epoch === undefined || (epoch !== this.epoch && !snapshot)) return false; // the holder's first frame moves it
    const replaced = epoch !== this.epoch && this.adopt(epoch);
    if (snapshot && !this.state) {
      this.state = this.newState(snapshot.data);
      for (const update of recorded.updates ?? []) this.state.apply(update);
    }
    this.lastTs = Math.max(this.lastTs, snapshot?.ts ?? 0);
    this.seq = replaced ? seq : Math.max(this.seq, seq);
    return replaced;
  }

  /**
   * The current state as one frame tagged with the latest seq, so the frames that follow are
   * consecutive for its receiver. Encoded at most once per seq and type, whatever the number of joiners.
   */
  stateFrame(type: 'snapshot' | 'resync'): WireFrame | undefined {
    if (!this.state) return undefined;
    if (this.stateFrames.seq !== this.seq || this.stateFrames.epoch !== this.epoch)
      this.stateFrames = { seq: this.seq, epoch: this.epoch };
    this.stateFrames[type] ??= encodeFrame({
      type,
      topic: this.name,
      epoch: this.epoch,
      seq: this.seq,
      ts: this.lastTs,
      data: this.state.data(),
    });
    return this.stateFrames[type];
  }

  /**
   * The state frame to record in the cluster with the frame of `seq` just emitted, or undefined when
   * the record may wait. A snapshot is always recorded (it is the frame itself). A folded state is
   * recorded every RECORD_EVERY updates, not after each: it is the whole state (thousands of orders
   * for a busy participant), and a relay that starts between two records folds the updates it lacks
   * from the topic's log (`seed`), which holds many more frames than that. Without a log, every update;
   * a family whose every update is the whole state records the update's own frame (no second encoding).
   */
  recordDue(frame: WireFrame): WireFrame | undefined {
    if (frame.type !== 'update') {
      this.recordedSeq = frame.seq;
      return frame;
    }
    if (!this.route.policy.fold) return undefined;
    if (this.state?.wholeUpdates) {
      // The update is the state: its own frame is the record (the relay reads only its data and seq).
      this.recordedSeq = frame.seq;
      return frame;
    }
    const logged = this.route.policy.replayWindow?.messages ?? 0;
    const every = Math.max(1, Math.min(RECORD_EVERY, Math.floor(logged / 4)));
    if (frame.seq - this.recordedSeq < every) return undefined;
    this.recordedSeq = frame.seq;
    return this.stateFrame('snapshot');
  }

  private newState(snapshot: unknown): SnapshotFold {
    const state = this.route.policy.fold?.() ?? snapshotOnly();
    state.reset(snapshot);
    return state;
  }

  /**
   * What a conflated client gets instead of the frames it skipped: the latest frame, or the current
   * state when the skipped frames changed it (a resync, or updates that a merge policy folds in).
   */
  catchUp(latest: WireFrame, skippedReset: boolean): WireFrame {
    if (latest.type !== 'update' || (!skippedReset && !this.route.policy.fold)) return latest;
    if (latest.seq !== this.seq) return latest;
    return this.stateFrame(skippedReset ? 'resync' : 'snapshot') ?? latest;
  }

  /**
   * The data of the updates in `published` (the cluster's log of the topic), then in the replay window,
   * oldest first (read before a new epoch clears it). The two overlap: a source deduplicates anyway.
   */
  deliveredUpdates(published: readonly Buffer[] = []): unknown[] {
    const frames = [...published.map(String), ...(this.window?.held() ?? []).map((frame) => frame.json)];
    return frames
      .map((json) => JSON.parse(json) as FrameMessage)
      .filter((frame) => frame.type === 'update')
      .map((frame) => frame.data);
  }

  /** Frames after `seq` for a resuming client, or `undefined` when it needs a resync instead. */
  replayAfter(seq: number, now: number): WireFrame[] | undefined {
    return this.window?.after(seq, this.seq, now);
  }

  /** `now` is this instance's clock: the replay window ages frames by local time, whatever the holder's clock says. */
  private apply(frame: WireFrame, data: unknown, ts: number, now: number): void {
    this.seq = frame.seq;
    this.lastTs = ts;
    if (frame.type !== 'update') {
      this.state = this.newState(data);
      // The broadcast frame is the state frame at its seq: later joiners reuse its bytes.
      this.stateFrames = { seq: frame.seq, epoch: this.epoch, [frame.type]: frame };
    } else if (this.route.policy.fold) {
      this.state?.apply(data);
    }
    this.window?.push(frame, now);
  }
}
