import { type RedisClient, createRedisClient } from '@lib/core';

import { RedisOpenOrderStore } from '../apps/gateway/src/risk/open-orders.store.js';
import { redisUrl } from './support/stack.js';

/** The exposure counts' Lua scripts on the run's real redis-server: the same rules as the memory store's spec. */
describe('exposure counts in Redis', () => {
  let redis: RedisClient;
  let store: RedisOpenOrderStore;
  const prefix = `t${process.pid}:exposure:`;
  const hash = (key: string) => redis.hgetall(`${prefix}{risk}:open:${key}`);

  beforeAll(async () => {
    redis = createRedisClient({
      mode: 'single',
      url: redisUrl(),
      keyPrefix: '',
      commandTimeoutMs: 2_000,
      connectTimeoutMs: 2_000,
    });
    // The client queues nothing offline: wait until it is connected.
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    store = new RedisOpenOrderStore(redis, prefix);
    // A fresh prefix has no generation: the first adoption creates it, and there is nothing open to count again.
    expect(await store.adopt()).toBe(false);
    await store.rebuilt();
  });
  afterAll(() => redis?.quit());

  it('reserves all or none, judges the net position and open notional, moves a partial fill out of the open quantity, releases and sweeps', async () => {
    const position = { key: 'p', max: 10, scope: 'team:trading', kind: 'position' as const, position: 8 };
    const notional = { key: 'n', max: 5_000_000, scope: 'team:trading', kind: 'notional' as const };
    expect(await store.reserve([notional, position], 'a', { side: 'buy', qty: 2, micros: 1_000_000 })).toBeUndefined();
    expect(await store.reserve([notional, position], 'b', { side: 'buy', qty: 1, micros: 500_000 })).toEqual({
      count: position,
      observed: 11,
    });
    expect(await store.reserve([notional], 'c', { side: 'buy', qty: 1, micros: 4_000_000 })).toBeUndefined();
    expect(await store.reserve([notional], 'd', { side: 'buy', qty: 1, micros: 1 })).toEqual({
      count: notional,
      observed: 5_000_001,
    });
    expect(await store.reserve([position], 'e', { side: 'sell', qty: 30, micros: 0 })).toEqual({
      count: position,
      observed: -22,
    });
    expect(await store.reserve([position], 'f', { side: 'sell', qty: 5, micros: 0 })).toBeUndefined();
    await store.bind('order-a', {
      token: 'a',
      keys: ['n', 'p'],
      participant: 'x',
      kinds: ['notional', 'position'],
      exposure: { side: 'buy', qty: 2, micros: 1_000_000 },
    });
    await store.leaves('order-a', 1);
    expect(await hash('n')).toMatchObject({
      '#notional': '4500000',
      '#buy': '2',
      a: expect.stringMatching(/^buy 1 500000 \d+$/),
    });
    const filled = { ...position, position: 9 };
    expect(await store.reserve([filled], 'h', { side: 'buy', qty: 1, micros: 0 })).toEqual({
      count: filled,
      observed: 11,
    });
    await store.releaseOrder('order-a');
    expect(await store.reserve([filled], 'i', { side: 'buy', qty: 1, micros: 0 })).toBeUndefined();
    await store.release('i', ['p']);
    // Unbound reservations past the age (here any) are dropped: c and f.
    await store.sweep(['n', 'p'], 0);
    expect(await hash('n')).toEqual({ '#notional': '0', '#buy': '0' });
    expect(await hash('p')).toEqual({ '#notional': '0', '#buy': '0', '#sell': '0' });
  });

  it('re-binds an order a replace answered under a new id: its share follows it (amended and released by the new id)', async () => {
    const notional = { key: 'rn', max: 5_000_000, scope: 'team:trading', kind: 'notional' as const };
    expect(await store.reserve([notional], 'r', { side: 'buy', qty: 2, micros: 1_000_000 })).toBeUndefined();
    await store.bind('old-id', {
      token: 'r',
      keys: ['rn'],
      participant: 'x',
      kinds: ['notional'],
      exposure: { side: 'buy', qty: 2, micros: 1_000_000 },
    });
    await store.rebind('old-id', 'new-id');
    await store.rebind('no-such-id', 'other-id');
    expect([...(await store.bound()).keys()].filter((id) => id.endsWith('-id'))).toEqual(['new-id']);
    expect(await store.amend('old-id', [notional], { mode: 'hold', qty: 4 })).toEqual({});
    expect(await store.amend('new-id', [notional], { mode: 'hold', qty: 4 })).toEqual({
      before: { qty: 2, micros: 1_000_000 },
      after: { qty: 4, micros: 2_000_000 },
    });
    await store.releaseOrder('new-id');
    expect(await store.judge([notional], { side: 'buy', qty: 1, micros: 5_000_000 })).toBeUndefined();
  });

  it('judges (the what-if) as a reservation would, taking nothing', async () => {
    const orders = { key: 'judge-o', max: 1, scope: 'team:trading' };
    const position = { key: 'judge-p', max: 10, scope: 'team:trading', kind: 'position' as const, position: 8 };
    expect(await store.judge([orders, position], { side: 'buy', qty: 2, micros: 0 })).toBeUndefined();
    expect(await store.judge([orders, position], { side: 'buy', qty: 3, micros: 0 })).toEqual({
      count: position,
      observed: 11,
    });
    expect(await redis.exists(`${prefix}{risk}:open:judge-o`, `${prefix}{risk}:open:judge-p`)).toBe(0);
    expect(await store.reserve([orders, position], 'a', { side: 'buy', qty: 2, micros: 0 })).toBeUndefined();
    expect(await store.judge([orders], { side: 'buy', qty: 1, micros: 0 })).toEqual({ count: orders, observed: 2 });
    await store.release('a', ['judge-o', 'judge-p']);
  });

  it('after the counts are lost: nothing is judged until rebuilt; an order is counted once, whether its bind or the rebuild comes first', async () => {
    const lossPrefix = `${prefix}loss:`;
    const lossy = new RedisOpenOrderStore(redis, lossPrefix);
    const count = { key: 'o', max: 10, scope: 'team:trading' };
    const exposure = { side: 'buy' as const, qty: 1, micros: 0 };
    const held = () => redis.zcard(`${lossPrefix}{risk}:open:o`);
    const counted = (token: string) => ({ token, keys: ['o'], participant: 'x', kinds: ['orders' as const], exposure });
    expect(await lossy.reserve([count], 'before', exposure)).toBe('lost'); // no generation adopted yet
    expect(await lossy.adopt()).toBe(false);
    await lossy.rebuilt();
    expect(await lossy.reserve([count], 'before', exposure)).toBeUndefined();
    // Redis loses the data (as FLUSHALL would): the counts and the generation.
    await redis.del(
      `${lossPrefix}{risk}:open:o`,
      `${lossPrefix}{risk}:open-generation`,
      `${lossPrefix}{risk}:open-rebuilt`,
    );
    expect(await lossy.reserve([count], 'after', exposure)).toBe('lost');
    expect(await held()).toBe(0);
    expect(await lossy.adopt()).toBe(false);
    await lossy.restore('order-open', counted('restored:order-open'));
    await lossy.rebuilt();
    // The insert reserved before the loss is answered now: its bind counts it again.
    await lossy.bind('order-before', counted('before'));
    expect(await held()).toBe(2);
    // Each counted once: the rebuild finds the bound one, a late bind finds the restored one.
    await lossy.restore('order-before', counted('restored:order-before'));
    await lossy.bind('order-open', counted('late'));
    expect(await held()).toBe(2);
    expect(await lossy.reserve([{ ...count, max: 2 }], 'next', exposure)).toEqual({
      count: { ...count, max: 2 },
      observed: 3,
    });
    await lossy.releaseOrder('order-open');
    expect(await held()).toBe(1);
  });
});
