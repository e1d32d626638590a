// What an admin types into the brakes, and into the journal export, is checked before it costs
// anything: a throttle rate too small to be a brake, a trading state or breaker reset naming a team
// or client the config does not hold (a typo in an emergency halt halted nobody), an unbounded market
// scope (it became a metrics label), a date PostgreSQL cannot hold (a 503 for the client's own
// mistake). Real Redis shared by two instances, the sandbox as the exchange, the journal in PostgreSQL.
import { SYMBOL, limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, api, json, pastGatewayRefusals, testJournal } from './support/stack.js';

const BOT = {
  id: 'bot',
  team: 'trading',
  scopes: ['write:orders' as const, 'read:orders' as const],
  participants: [PARTICIPANT],
};
/** A client instance A's config holds and instance B's no longer does (it left the config since). */
const GONE = { ...BOT, id: 'gone' };

/** A 400 VALIDATION_FAILED problem naming `field`. */
async function expectRefused(res: Response, field: string): Promise<{ message: string }> {
  expect({ field, status: res.status }).toEqual({ field, status: 400 });
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  const problem = await json(res);
  expect(problem.code).toBe('VALIDATION_FAILED');
  const error = problem.errors.find((e: { path: string }) => e.path === field);
  expect({ field, paths: problem.errors.map((e: { path: string }) => e.path) }).toEqual({
    field,
    paths: expect.arrayContaining([field]),
  });
  return error;
}

const putLimits = (stack: Stack, body: unknown) =>
  api(stack)('/admin/risk/limits', { method: 'PUT', body: JSON.stringify(body) });
const setState = (stack: Stack, scope: string, state: string) =>
  post(stack, '/admin/risk/states', { scope, state, reason: 'input check' });

describe('admin input to the risk controls and the journal export is refused 400 naming the field', () => {
  let a: Stack;
  let b: Stack;
  const prefix = `admininput${process.pid}:`;

  beforeAll(async () => {
    a = await startExchangeStack([BOT, GONE], {
      redis: true,
      redisKeyPrefix: prefix,
      gateway: (config) => ({ ...config, journal: testJournal() }),
    });
    b = await startExchangeStack([BOT], { redis: true, redisKeyPrefix: prefix, reuseSandbox: a.sandbox });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('refuses a throttle under one call an hour and a notional past a billion; at the floor, Retry-After is whole seconds', async () => {
    const cases: [number, string][] = [
      [5e-324, 'maxOrdersPerSecond'],
      [1e-300, 'maxOrdersPerSecond'],
      [0.0002, 'maxOrdersPerSecond'],
      [1e303, 'maxOpenNotional'],
      [1e303, 'maxOrderNotional'],
    ];
    for (const [value, name] of cases) {
      const res = await putLimits(a, {
        limits: [{ scope: 'team', id: 'trading', [name]: value }],
        reason: 'absurd value',
      });
      const error = await expectRefused(res, `body.limits.0.${name}`);
      if (name === 'maxOrdersPerSecond') expect(error.message).toContain('1/3600');
    }
    expect((await json(await api(a)('/admin/risk'))).limitsSet.version).toBe(0);

    // The slowest rate allowed: one call, then a wait of an hour, said as a whole number of seconds.
    const slowest = await putLimits(a, {
      limits: [{ scope: 'client', id: 'bot', maxOrdersPerSecond: 1 / 3_600 }],
      reason: 'slowest throttle',
      version: 0,
    });
    expect(slowest.status).toBe(200);
    const first = await pastGatewayRefusals(() =>
      post(a, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 10, { clordId: 'slow-1' }), 'bot'),
    );
    expect(first.status).toBe(200);
    const second = await post(a, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 10, { clordId: 'slow-2' }), 'bot');
    expect(second.status).toBe(429);
    const retryAfter = second.headers.get('retry-after') ?? '';
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeLessThanOrEqual(3_600);
    expect((await json(second)).code).toBe('RISK_THROTTLED');
    const back = await api(a)('/admin/risk/limits', {
      method: 'DELETE',
      body: JSON.stringify({ reason: 'back to config' }),
    });
    expect(back.status).toBe(200);
  });

  it('refuses a state or a breaker reset naming an unknown team or client, or an unbounded market; latches nothing', async () => {
    const refused: [string, string][] = [
      ['team:nosuch', 'halted'],
      ['team:nosuch', 'halt-and-cancel'],
      ['client:Bot', 'halted'], // the client is `bot`: a halt of `Bot` would halt nobody
      ['client:constructor', 'halted'],
      ['client:nosuch', 'active'],
      [`market:${'a'.repeat(5_000)}`, 'halted'],
      [`market:${SYMBOL}*`, 'halted'], // a state's market is one market, never a prefix
    ];
    for (const [scope, state] of refused) {
      const error = await expectRefused(await setState(a, scope, state), 'body.scope');
      expect(error.message).toMatch(/unknown (team|client)|market:</);
    }
    await expectRefused(
      await post(a, '/admin/risk/breakers/reset', { client: 'nosuch', reason: 'typo' }),
      'body.client',
    );
    const view = await json(await api(a)('/admin/risk'));
    expect(view.states).toEqual([]);
    expect(view.changes).toEqual([]);

    // What exists is still taken as before: a configured client, a market slug, the firm.
    expect((await post(a, '/admin/risk/breakers/reset', { client: 'bot', reason: 'none open' })).status).toBe(200);
    for (const scope of [`market:${SYMBOL}`, 'client:bot', 'firm']) {
      expect((await setState(a, scope, 'halted')).status).toBe(200);
      expect((await setState(a, scope, 'active')).status).toBe(200);
    }
  });

  it('takes a market as orders spell it (capitals, dots, underscores) in a limit and a state alike, and refuses one no order can name', async () => {
    const market = 'Fed.RATE_2026-12'; // an exchange symbol is not bound to the retail slugs' lower case
    const taken = await putLimits(a, {
      limits: [{ scope: 'client', id: 'bot', market, maxOrderQty: 5 }],
      reason: 'a symbol with capitals',
    });
    expect(taken.status).toBe(200);
    for (const bad of ['Fed RATE', 'fed/rate', '.fed']) {
      await expectRefused(
        await putLimits(a, { limits: [{ scope: 'client', id: 'bot', market: bad, maxOrderQty: 5 }], reason: 'bad' }),
        'body.limits.0.market',
      );
      await expectRefused(await setState(a, `market:${bad}`, 'halted'), 'body.scope');
    }
    const back = await api(a)('/admin/risk/limits', {
      method: 'DELETE',
      body: JSON.stringify({ reason: 'back to config' }),
    });
    expect(back.status).toBe(200);
  });

  // A halt of a market the venue does not list halts nothing: a probe's `market:<SYMBOL in capitals>`, a
  // trailing dot and an invented name each answered 200. Refused now; the listed symbol, and a lift of
  // any, are taken.
  it('refuses a state on a market the venue does not list, as spelled: capitals, a trailing dot, an invented name', async () => {
    for (const bad of [SYMBOL.toUpperCase(), `${SYMBOL}.`, 'no-such-market', 'Fed.RATE_2026-12']) {
      const error = await expectRefused(await setState(a, `market:${bad}`, 'halted'), 'body.scope');
      expect(error.message).toMatch(/unknown market/);
    }
    expect((await json(await api(a)('/admin/risk'))).states).toEqual([]);
    expect((await setState(a, `market:${SYMBOL}`, 'halted')).status).toBe(200);
    expect((await setState(a, `market:${SYMBOL}`, 'active')).status).toBe(200);
    expect((await setState(a, 'market:no-such-market', 'active')).status).toBe(200);
  });

  it('takes any state on a scope already latched, so a state latched for a client that has since left the config can be lifted', async () => {
    expect((await setState(a, 'client:gone', 'halted')).status).toBe(200);
    // B's config has no `gone`: the halt latched on it is B's to change all the same (halted harder, or lifted).
    expect((await setState(b, 'client:gone', 'halt-and-cancel')).status).toBe(200);
    const lifted = await setState(b, 'client:gone', 'active');
    expect(lifted.status).toBe(200);
    expect(await json(lifted)).toMatchObject({
      change: { scope: 'client:gone', from: 'halt-and-cancel', state: 'active' },
    });
    // Lifted, it is unknown to B like any other name.
    await expectRefused(await setState(b, 'client:gone', 'halted'), 'body.scope');
  });

  it('refuses a journal export date PostgreSQL cannot hold with 400 naming the field, not 503', async () => {
    const exportOf = (from: string, to: string) =>
      api(a)(`/admin/journal/export?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    const cases: [string, string, string][] = [
      ['0000-01-01T00:00:00Z', '2027-01-01T00:00:00Z', 'query.from'],
      ['0001-01-01T00:00:00+01:00', '2027-01-01T00:00:00Z', 'query.from'], // year 0 in UTC
      ['2026-01-01T00:00:00Z', '9999-12-31T23:59:59-14:00', 'query.to'], // year 10000 in UTC
    ];
    for (const [from, to, field] of cases) {
      const res = await exportOf(from, to);
      expect(res.headers.get('retry-after')).toBeNull();
      await expectRefused(res, field);
    }
    // The whole range the journal can hold is read.
    expect((await exportOf('0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z')).status).toBe(200);
  });
});
