import type { RedisClient } from '@lib/core';

import { Script } from './redis.script.js';

/**
 * Takes the lease when free (SET NX PX) or keeps it when already ours, and returns the seq the topic
 * reached under its previous holder, so the new one continues from there; -1 when another holds it.
 */
const ACQUIRE = `
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] or (not holder and redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])) then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return tonumber(redis.call('hget', KEYS[2], 'seq') or '0')
end
return -1`;

/**
 * Compare-and-extend. A lease that expired while nobody took it is taken back: nobody else published
 * in between, so the topic continues without a resync.
 */
const RENEW = `
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
if not holder then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;

const RELEASE = `
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0`;

/**
 * Publishes a frame only while the caller holds the lease (a holder that lost it unknowingly is fenced
 * off), and records the seq and latest snapshot so a new relay or a new holder can start from them.
 */
const PUBLISH = `
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('hset', KEYS[2], 'seq', ARGV[2])
if ARGV[6] ~= '' then redis.call('hset', KEYS[2], 'snapshot', ARGV[6]) end
redis.call('pexpire', KEYS[2], ARGV[5])
redis.call('publish', ARGV[4], ARGV[3])
return 1`;

export interface TopicKeys {
  lease: string;
  state: string;
  channel: string;
}

/** Lease and relay commands of one instance. Keys of a topic share a hash tag: one Cluster slot per script. */
export class LeaseScripts {
  private readonly acquireScript = new Script(ACQUIRE);
  private readonly renewScript = new Script(RENEW);
  private readonly releaseScript = new Script(RELEASE);
  private readonly publishScript = new Script(PUBLISH);

  constructor(
    private readonly redis: RedisClient,
    private readonly owner: string,
    private readonly leaseMs: number,
    private readonly stateTtlMs: number,
  ) {}

  acquire(keys: TopicKeys): Promise<number> {
    return this.acquireScript.run(this.redis, [keys.lease, keys.state], [this.owner, this.leaseMs]);
  }

  async renew(keys: TopicKeys): Promise<boolean> {
    return (await this.renewScript.run(this.redis, [keys.lease], [this.owner, this.leaseMs])) === 1;
  }

  async release(keys: TopicKeys): Promise<void> {
    await this.releaseScript.run(this.redis, [keys.lease], [this.owner]);
  }

  /** `false` when the lease is no longer ours: the frame was not published. */
  async publish(keys: TopicKeys, seq: number, frameJson: string, snapshotJson: string): Promise<boolean> {
    const args = [this.owner, seq, frameJson, keys.channel, this.stateTtlMs, snapshotJson];
    return (await this.publishScript.run(this.redis, [keys.lease, keys.state], args)) === 1;
  }

  /** The seq and snapshot frame the holder recorded, to seed a relay. */
  async state(keys: TopicKeys): Promise<{ seq: number; snapshot: string | undefined }> {
    const [seq, snapshot] = await this.redis.hmget(keys.state, 'seq', 'snapshot');
    return { seq: Number(seq ?? 0), snapshot: snapshot ?? undefined };
  }
}
