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
    redis = createRedisClient({ mode: 'single', url: redisUrl(), keyPrefix: '', commandTimeoutMs: 2_000, connectTimeoutMs: 2_000 });
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
    expect(await store.reserve([notional, position], 'b', { side: 'buy', qty: 1, micros: 500_000 })).toEqual({ count: position, observed: 11 });
    expect(await store.reserve([notional], 'c', { side: 'buy', qty: 1, micros: 4_000_000 })).toBeUndefined();
    expect(await store.reserve([notional], 'd', { side: 'buy', qty: 1, micros: 1 })).toEqual({ count: notional, observed: 5_000_001 });
    expect(await store.reserve([position], 'e', { side: 'sell', qty: 30, micros: 0 })).toEqual({ count: position, observed: -22 });
    expect(await store.reserve([position], 'f', { side: 'sell', qty: 5, micros: 0 })).toBeUndefined();
    await store.bind('order-a', { token: 'a', keys: ['n', 'p'], participant: 'x', kinds: ['notional', 'position'], exposure: { side: 'buy', qty: 2, micros: 1_000_000 } });
    await store.leaves('order-a', 1);
    expect(await hash('n')).toMatchObject({ '#notional': '4500000', '#buy': '2', a: expect.stringMatching(/^buy 1 500000 \d+$/) });
    const filled = { ...position, position: 9 };
    expect(await store.reserve([filled], 'h', { side: 'buy', qty: 1, micros: 0 })).toEqual({ count: filled, observed: 11 });
    await store.releaseOrder('order-a');
    expect(await store.reserve([filled], 'i', { side: 'buy', qty: 1, micros: 0 })).toBeUndefined();
    await store.release('i', ['p']);
    // Unbound reservations past the age (here any) are dropped: c and f.
    await store.sweep(['n', 'p'], 0);
    expect(await hash('n')).toEqual({ '#notional': '0', '#buy': '0' });
    expect(await hash('p')).toEqual({ '#notional': '0', '#buy': '0', '#sell': '0' });
  });

  it('judges (the what-if) as a reservation would, taking nothing', async () => {
    const orders = { key: 'judge-o', max: 1, scope: 'team:trading' };
    const position = { key: 'judge-p', max: 10, scope: 'team:trading', kind: 'position' as const, position: 8 };
    expect(await store.judge([orders, position], { side: 'buy', qty: 2, micros: 0 })).toBeUndefined();
    expect(await store.judge([orders, position], { side: 'buy', qty: 3, micros: 0 })).toEqual({ count: position, observed: 11 });
    expect(await redis.exists(`${prefix}{risk}:open:judge-o`, `${prefix}{risk}:open:judge-p`)).toBe(0);
    expect(await store.reserve([orders, position], 'a', { side: 'buy', qty: 2, micros: 0 })).toBeUndefined();
    expect(await store.judge([orders], { side: 'buy', qty: 1, micros: 0 })).toEqual({ count: orders, observed: 2 });
    await store.release('a', ['judge-o', 'judge-p']);
  });
});
