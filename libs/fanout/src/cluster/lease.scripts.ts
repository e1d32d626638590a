import { LuaScript, type RedisClient } from '@lib/core';

// A lease's value is `<instance> <epoch>`: every command of a holder names its epoch, so a holder
// that lost its lease (even unknowingly, to a slow Redis) cannot renew or publish in it (fencing).

/**
 * Takes the lease when free, or when this instance holds it under an epoch it gave up (fenced), under
 * a new epoch; records that epoch (dropping the old
 * epoch's snapshot, which is no base for the new numbering), and returns the seq the topic reached,
 * so the new holder's numbers keep growing; -1 when another holds it.
 */
const ACQUIRE = `
local holder = redis.call('get', KEYS[1])
if holder and holder:sub(1, #ARGV[5] + 1) ~= ARGV[5] .. ' ' then return -1 end
redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('hset', KEYS[2], 'epoch', ARGV[3])
redis.call('hdel', KEYS[2], 'snapshot')
redis.call('pexpire', KEYS[2], ARGV[4])
return tonumber(redis.call('hget', KEYS[2], 'seq') or '0')`;

/**
 * Compare-and-extend, then the holder's heartbeat on the frames channel (`hb:<epoch>:<seq>`): relays
 * that hear neither frames nor heartbeats take the topic locally. A lease that lapsed while nobody
 * took it is taken back only if its epoch is still the recorded one: nobody else published since.
 */
const RENEW = `
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then redis.call('pexpire', KEYS[1], ARGV[2])
elseif not holder and redis.call('hget', KEYS[2], 'epoch') == ARGV[5] then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
else return 0 end
redis.call(ARGV[4], ARGV[3], 'hb:' .. ARGV[5] .. ':' .. (redis.call('hget', KEYS[2], 'seq') or '0'))
return 1`;

const RELEASE = `
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0`;

/**
 * Publishes a frame only while the caller holds the lease in the frame's epoch, and records the seq
 * and latest snapshot so a new relay or a new holder can start from them. A topic with a replay window
 * (ARGV[8] frames, 0 for none) also appends the frame to its log in the same step, so the log holds a
 * frame exactly when it was published: a relay reads back what pub/sub lost, a new holder what the
 * cluster delivered. Conflated topics write nothing more. A checkpoint (ARGV[9], '' for none) is
 * stored in the same step: it never names a point past what the cluster published, and a holder
 * that lost its lease stores none. It has no expiry: a resume token outlives any pause of the topic.
 */
const PUBLISH = `
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[9] ~= '' then redis.call('set', KEYS[4], ARGV[9]) end
redis.call('hset', KEYS[2], 'seq', ARGV[2])
if ARGV[6] ~= '' then redis.call('hset', KEYS[2], 'snapshot', ARGV[6]) end
redis.call('pexpire', KEYS[2], ARGV[5])
local logged = tonumber(ARGV[8])
if logged > 0 then
  redis.call('rpush', KEYS[3], ARGV[3])
  redis.call('ltrim', KEYS[3], -logged, -1)
  redis.call('pexpire', KEYS[3], ARGV[5])
end
redis.call(ARGV[7], ARGV[4], ARGV[3])
return 1`;

export interface TopicKeys {
  lease: string;
  state: string;
  /** The last published frames of a topic with a replay window, oldest first. */
  log: string;
  /** The checkpoint published with the topic's last frame that carried one. */
  checkpoint: string;
  /** Carries the hash tag too: on a Cluster the scripts publish on it with SPUBLISH, in the keys' slot. */
  channel: string;
}

export interface RecordedState {
  seq: number;
  epoch: string | undefined;
  snapshot: string | undefined;
}

/** Lease and relay commands of one instance. Keys of a topic share a hash tag: one Cluster slot per script. */
export class LeaseScripts {
  private readonly acquireScript = new LuaScript(ACQUIRE);
  private readonly renewScript = new LuaScript(RENEW);
  private readonly releaseScript = new LuaScript(RELEASE);
  private readonly publishScript = new LuaScript(PUBLISH);

  constructor(
    private readonly redis: RedisClient,
    private readonly owner: string,
    private readonly leaseMs: number,
    private readonly stateTtlMs: number,
    /** `spublish` on a Cluster (sharded pub/sub: only the slot's shard carries it), `publish` elsewhere. */
    private readonly publishCommand: 'publish' | 'spublish',
  ) {}

  /** The seq recorded for the topic when the lease is now ours under `epoch`; -1 when another holds it. */
  async acquire(keys: TopicKeys, epoch: string): Promise<number> {
    return Number(
      await this.acquireScript.run(
        this.redis,
        [keys.lease, keys.state],
        [this.value(epoch), this.leaseMs, epoch, this.stateTtlMs, this.owner],
      ),
    );
  }

  async renew(keys: TopicKeys, epoch: string): Promise<boolean> {
    const args = [this.value(epoch), this.leaseMs, keys.channel, this.publishCommand, epoch];
    return Number(await this.renewScript.run(this.redis, [keys.lease, keys.state], args)) === 1;
  }

  async release(keys: TopicKeys, epoch: string): Promise<void> {
    await this.releaseScript.run(this.redis, [keys.lease], [this.value(epoch)]);
  }

  /**
   * `false` when the lease is no longer ours in `epoch`: the frame was not published (nor its checkpoint
   * stored). `logged`: the log's length, 0 for none; `checkpoint`: '' for none.
   */
  async publish(
    keys: TopicKeys,
    epoch: string,
    seq: number,
    frameJson: string,
    snapshotJson: string,
    logged: number,
    checkpoint: string,
  ): Promise<boolean> {
    const args = [
      this.value(epoch),
      seq,
      frameJson,
      keys.channel,
      this.stateTtlMs,
      snapshotJson,
      this.publishCommand,
      logged,
      checkpoint,
    ];
    return (
      Number(
        await this.publishScript.runInOrder(this.redis, [keys.lease, keys.state, keys.log, keys.checkpoint], args),
      ) === 1
    );
  }

  async checkpoint(keys: TopicKeys): Promise<string | undefined> {
    return (await this.redis.get(keys.checkpoint)) ?? undefined;
  }

  /** The frames in the topic's log, oldest first, exactly as published. */
  log(keys: TopicKeys): Promise<Buffer[]> {
    return this.redis.lrangeBuffer(keys.log, 0, -1);
  }

  /** The epoch, seq and snapshot frame the holder recorded, to seed a relay. */
  async state(keys: TopicKeys): Promise<RecordedState> {
    const [seq, epoch, snapshot] = await this.redis.hmget(keys.state, 'seq', 'epoch', 'snapshot');
    return { seq: Number(seq ?? 0), epoch: epoch ?? undefined, snapshot: snapshot ?? undefined };
  }

  private value(epoch: string): string {
    return `${this.owner} ${epoch}`;
  }
}
