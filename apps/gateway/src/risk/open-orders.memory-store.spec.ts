import { MemoryOpenOrderStore } from './open-orders.memory-store.js';
import { RiskLimits } from './risk-limits.js';

describe('exposure counts', () => {
  const limits = new RiskLimits([
    { scope: 'firm', maxOpenNotional: 1000, maxNetPosition: 500 },
    { scope: 'team', id: 'trading', maxOpenNotional: 100 },
    { scope: 'team', id: 'trading', market: 'aec-nfl-buf-kc-*', maxNetPosition: 10 },
  ]);
  const bot = { id: 'bot', team: 'trading' };

  it('keys open notional by scope and market pattern, net position by scope and market (or the event prefix)', () => {
    expect(limits.exposureCounts(bot, 'aec-nfl-buf-kc-2026').map((c) => [c.kind, c.key, c.max])).toEqual([
      ['notional', 'notional:firm', 1_000_000_000],
      ['position', 'position:firm@aec-nfl-buf-kc-2026', 500],
      ['notional', 'notional:team:trading', 100_000_000],
      ['position', 'position:team:trading@aec-nfl-buf-kc-*', 10],
    ]);
  });

  it('reserves all or none, refuses growth past the net position and lets a reduction through, and moves fills out of the open quantity', async () => {
    const store = new MemoryOpenOrderStore();
    const position = { key: 'p', max: 10, scope: 'team:trading', kind: 'position' as const, position: 8 };
    const notional = { key: 'n', max: 5_000_000, scope: 'team:trading', kind: 'notional' as const };
    expect(await store.reserve([notional, position], 'a', { side: 'buy', qty: 2, micros: 1_000_000 })).toBeUndefined();
    expect(await store.reserve([notional, position], 'b', { side: 'buy', qty: 1, micros: 500_000 })).toEqual({
      count: position,
      observed: 11,
    });
    // Nothing of the refused one was taken: the notional still holds $1.
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
    // One of a's two filled: the position read says 9 now, a's open quantity 1.
    const filled = { ...position, position: 9 };
    expect(await store.reserve([filled], 'g', { side: 'buy', qty: 0, micros: 0 })).toBeUndefined();
    expect(await store.reserve([filled], 'h', { side: 'buy', qty: 1, micros: 0 })).toEqual({
      count: filled,
      observed: 11,
    });
    await store.releaseOrder('order-a');
    expect(await store.reserve([filled], 'i', { side: 'buy', qty: 1, micros: 0 })).toBeUndefined();
  });

  it('re-binds an order a replace answered under a new id: its share follows it (amended and released by the new id)', async () => {
    const store = new MemoryOpenOrderStore();
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

  it('judges as a reservation would, taking nothing', async () => {
    const store = new MemoryOpenOrderStore();
    const orders = { key: 'o', max: 1, scope: 'team:trading' };
    expect(await store.judge([orders], { side: 'buy', qty: 1, micros: 0 })).toBeUndefined();
    expect(await store.judge([orders], { side: 'buy', qty: 1, micros: 0 })).toBeUndefined();
    expect(await store.reserve([orders], 'a', { side: 'buy', qty: 1, micros: 0 })).toBeUndefined();
    expect(await store.judge([orders], { side: 'buy', qty: 1, micros: 0 })).toEqual({ count: orders, observed: 2 });
  });
});
