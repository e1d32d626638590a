/** Where an upstream stream client reports what it received for one topic. */
export interface TopicSink {
  /** The full current state of the topic; after `gap()` it replaces whatever clients held. */
  snapshot(payload: unknown): void;
  /**
   * An incremental message (a book change, an execution, a trade). `checkpoint`: where the source
   * resumes once this update is delivered (drop copy's resume token). With a cluster it is stored in the
   * same step the update is published, only under the topic's lease, so it never runs ahead of what the
   * cluster delivered, even from a holder that lost its lease unknowingly; see `lastCheckpoint`.
   */
  update(payload: unknown, checkpoint?: string): void;
  /** The upstream reconnected or missed data: the next snapshot is sent to every subscriber as `resync`. */
  gap(): void;
  /**
   * The source gave the topic up for good (the exchange refused it after it had streamed): each
   * subscriber gets an `error` naming the topic and `error.message`, and the topic closes; a later
   * subscribe opens it anew.
   */
  end?(error: Error): void;
  /**
   * The update payloads the topic already delivered on this instance (its replay window, oldest first)
   * when this sink was opened, e.g. relayed from a holder that died: a source that resumes from a stored
   * point drops what clients already have.
   */
  readonly delivered?: readonly unknown[];
  /**
   * With a cluster: the checkpoint stored with the last update the cluster published of this topic
   * (undefined before any); it rejects when Redis cannot be read. Absent without a cluster, where the
   * source keeps its own checkpoint (one instance: nobody else can publish).
   */
  readonly lastCheckpoint?: () => Promise<string | undefined>;
}

/**
 * What an upstream stream client implements. The hub calls `open` once per topic however many
 * clients want it, and `close` after the last one left and the linger passed. A sink stays valid
 * until `close`; calls after that are ignored.
 */
export interface TopicSource {
  open(topic: string, sink: TopicSink): Promise<void> | void;
  close(topic: string): void;
}

export interface ReplayWindowPolicy {
  /** At most this many frames are kept... */
  messages: number;
  /** ...and none older than this. */
  ms: number;
}

/**
 * Who reads a topic whose records belong to several principals (the firm's participants): the
 * principals one client holds. A client without a viewer sees the whole topic.
 */
export interface Viewer {
  /** Viewers with the same principals have the same key: a frame is narrowed once per key, not per client. */
  readonly key: string;
  readonly principals: ReadonlySet<string>;
}

/**
 * The part of a frame's data `viewer` may see. Pure: it must not change `data` (shared by every
 * client) and must give the same answer on every instance, so the topic's one numbering (epoch,
 * seq, replay window, relay) serves every view unchanged: each frame reaches each client once,
 * narrowed, under its own seq.
 */
export type TopicView = (data: unknown, viewer: Viewer) => unknown;

/** How the hub treats one family of topics; the hub knows nothing else about them. */
export interface TopicPolicy {
  /**
   * `true` for market-data-like topics: a slow client gets only the latest frame per topic.
   * `false` for account topics: nothing is ever dropped; a client too slow for its queue is closed.
   */
  conflate: boolean;
  /** Frames kept for `resumeFrom`; without a window a resuming client gets a `resync`. */
  replayWindow?: ReplayWindowPolicy;
  /**
   * Makes the fold that keeps a topic's state current for late joiners, each update folded in. Without
   * it an update changes nothing in the state, which only snapshot events refresh.
   */
  fold?: () => SnapshotFold;
  /**
   * The pool of upstream streams a topic of this family costs one of while it is open, and the kind
   * of stream it is (labels the usage views); without it the family's topics are not counted.
   */
  capacity?: { pool: string; kind: string };
  /**
   * A family carrying several principals' records (a firm-wide feed): every frame, snapshot and
   * replay goes to a client with a viewer through this, so one declaration decides what each
   * client of the family sees. Clients without a viewer get the frames as they are.
   */
  view?: TopicView;
}

/**
 * One topic's state as late joiners get it, kept current by folding in each update. `apply` costs what
 * the update changes, never the whole state (a participant may have thousands of resting orders, and
 * every one of its executions is an update); `data` builds the state only when a joiner, a conflated
 * client's catch-up or the cluster's record asks for it.
 */
export interface SnapshotFold {
  /** Starts again from a snapshot (the upstream's, or the one the cluster recorded). */
  reset(snapshot: unknown): void;
  apply(update: unknown): void;
  data(): unknown;
  /** Every update is the whole state (a full book): the update's own frame serves as the state's record. */
  readonly wholeUpdates?: boolean;
}

/** The fold of a family whose every update is the whole state (each market-data message a full book). */
export function latestFold(): SnapshotFold {
  let state: unknown;
  return {
    reset: (snapshot) => void (state = snapshot),
    apply: (update) => void (state = update),
    data: () => state,
    wholeUpdates: true,
  };
}

export const MARKET_DATA_POLICY: TopicPolicy = { conflate: true };

/** An account stream must be replayable over a short reconnect: 1,000 frames or one minute. */
export const ACCOUNT_POLICY: TopicPolicy = { conflate: false, replayWindow: { messages: 1_000, ms: 60_000 } };
