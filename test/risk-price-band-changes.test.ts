import { COUNTERPARTY, SYMBOL, limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, json, startStack } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

/** Empty at start and never traded: no reference on either surface. */
const EMPTY = 'aec-nfl-sf-sea-2026-11-22';
const TRADER = ['write:orders' as const, 'read:orders' as const];

const withBand = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  limits: { ...config.limits, maxDecisionAgeMs: 30_000 },
  risk: { limits: [{ scope: 'team', id: 'trading', priceBand: 0.05 }] },
});
const usd = (value: string) => ({ value, currency: 'USD' });
const retail = (intent: string, price: string | undefined, marketSlug = SYMBOL) => ({
  marketSlug,
  intent: `ORDER_INTENT_${intent}`,
  ...(price === undefined ? { type: 'ORDER_TYPE_MARKET' } : { type: 'ORDER_TYPE_LIMIT', price: usd(price) }),
  quantity: 1,
});
const rest = (side: 'SIDE_BUY' | 'SIDE_SELL', price: number, clordId: string) =>
  ({
    symbol: SYMBOL,
    side,
    orderQty: 10,
    price,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: COUNTERPARTY,
    clordId,
  }) as const;

/** Every retail route the sandbox served (its `retail.route.*` counters): what the gateway sent to the retail API. */
function retailCalls(stack: Stack): number {
  return Object.entries(stack.sandbox.state.counterSnapshot())
    .filter(([name]) => name.startsWith('retail.route.'))
    .reduce((sum, [, n]) => sum + n, 0);
}

describe('price band on replaces, and on retail creates, modifies and close-positions', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startExchangeStack(
      [
        { id: 'bot', team: 'trading', scopes: TRADER, participants: [PARTICIPANT], retailAccounts: ['main'] },
        { id: 'other', team: 'trading', scopes: TRADER, participants: [OTHER_PARTICIPANT], retailAccounts: ['hedge'] },
      ],
      { gateway: withBand },
    );
    // Another firm quotes 40 / 44 (tight: the reference is the mid, 42 cents; the band 37–47), seen by both surfaces' streams.
    stack.sandbox.state.engine.insert(rest('SIDE_BUY', 40, 'carol-bid'));
    stack.sandbox.state.engine.insert(rest('SIDE_SELL', 44, 'carol-ask'));
  });
  afterAll(() => stack?.close());

  /** A refusal as problem+json, with nothing sent to either upstream. */
  async function refused(path: string, body: object) {
    const sent = [upstreamCalls(stack), retailCalls(stack)];
    const res = await post(stack, path, body, 'bot');
    const problem = await json(res);
    expect([res.status, problem.code]).toEqual([422, expect.stringMatching(/^RISK_(PRICE_BAND|REFERENCE_STALE)$/)]);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect([upstreamCalls(stack), retailCalls(stack)]).toEqual(sent);
    return problem;
  }

  it('judges an exchange replace by its new price on the order own symbol and side: aggressive outside refused, resting passes', async () => {
    const placed = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 20, { clordId: 'bot-bid' }),
      'bot',
    );
    expect(placed.status).toBe(200);
    const { orderId } = await json(placed);
    // The body names no symbol: the order's own (the journal, the order stream) is what the band reads.
    expect(await refused('/exchange/v1/trading/orders/replace/list', { requests: [{ orderId, price: '48' }] })).toEqual(
      expect.objectContaining({
        code: 'RISK_PRICE_BAND',
        band: { low: 0.37, high: 0.47 },
        reference: 0.42,
        observed: 0.48,
        order: 'body.requests.0',
      }),
    );
    expect(stack.sandbox.state.engine.order(orderId)).toMatchObject({ price: 20 });
    const resting = await post(
      stack,
      '/exchange/v1/trading/orders/replace/list',
      { requests: [{ orderId, price: '30' }] },
      'bot',
    );
    expect(resting.status).toBe(200);
    expect(stack.sandbox.state.engine.order(orderId)).toMatchObject({ price: 30 });
    // An order the gateway knows nothing of: its new price cannot be placed against any reference (fail closed).
    expect(
      await refused('/exchange/v1/trading/orders/replace/list', {
        requests: [{ orderId: 'no-such-order', price: '45' }],
      }),
    ).toMatchObject({ code: 'RISK_REFERENCE_STALE', orderId: 'no-such-order', order: 'body.requests.0' });
    // Another participant's order is as unknown as that: its market is not told, whatever the band would say of it.
    const theirs = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 22, { clordId: 'their-bid' }),
      'other',
    );
    const theirId = (await json(theirs)).orderId;
    const foreign = await refused('/exchange/v1/trading/orders/replace/list', {
      requests: [{ orderId: theirId, price: '48' }],
    });
    expect(foreign).toMatchObject({ code: 'RISK_REFERENCE_STALE', orderId: theirId });
    expect(foreign).not.toHaveProperty('symbol');
    expect(foreign).not.toHaveProperty('reference');
  });

  it('judges a batch-inserted order replaced at once on its own side (a sell crossing the bid)', async () => {
    const batch = await post(
      stack,
      '/exchange/v1/trading/orders/list',
      {
        requests: [
          limit('SIDE_BUY', 1, 21, { clordId: 'batch-bid' }),
          limit('SIDE_SELL', 1, 60, { clordId: 'batch-ask' }),
        ],
      },
      'bot',
    );
    expect(batch.status).toBe(200);
    const [, { orderId }] = (await json(batch)).responses;
    // Down to 0.30 the resting sell would hit the 0.40 bid, outside the band; to 0.50 it still rests.
    expect(
      await refused('/exchange/v1/trading/orders/replace/list', { requests: [{ orderId, price: '30' }] }),
    ).toMatchObject({ code: 'RISK_PRICE_BAND', observed: 0.3, order: 'body.requests.0' });
    const resting = await post(
      stack,
      '/exchange/v1/trading/orders/replace/list',
      { requests: [{ orderId, price: '50' }] },
      'bot',
    );
    expect(resting.status).toBe(200);
    expect(stack.sandbox.state.engine.order(orderId)).toMatchObject({ price: 50, cumQty: 0 });
  });

  it('judges on another instance a replace of an order this one placed, from the shared journal', async () => {
    const placed = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_SELL', 1, 70, { clordId: 'journal-ask' }),
      'bot',
    );
    const { orderId } = await json(placed);
    const journal = { ...stack.configInput.journal, schema: stack.config.journal.schema };
    const second = await startStack({
      reuseSandbox: stack.sandbox,
      clients: [{ id: 'bot', team: 'trading', scopes: TRADER, participants: [PARTICIPANT] }],
      gateway: (config) => ({ ...withBand(config), journal }),
    });
    try {
      // The fresh instance reads the instrument list (its own reference read, at most once a minute) before
      // it streams a symbol new to it: that read is not the order's, which must send nothing.
      const orderCalls = () => upstreamCalls(stack) - stack.sandbox.state.counter('exchange.calls.instruments');
      const sent = orderCalls();
      const res = await post(
        second,
        '/exchange/v1/trading/orders/replace/list',
        { requests: [{ orderId, price: '30' }] },
        'bot',
      );
      expect(await json(res)).toMatchObject({ code: 'RISK_PRICE_BAND', observed: 0.3, order: 'body.requests.0' });
      expect(orderCalls()).toBe(sent);
    } finally {
      await second.close();
    }
  });

  it('refuses a retail create that would execute outside the band (a short intent mirrored), and lets a resting one through', async () => {
    expect(await refused('/retail/v1/orders', retail('BUY_LONG', '0.48'))).toMatchObject({
      code: 'RISK_PRICE_BAND',
      reference: 0.42,
      referenceSource: 'mid',
      observed: 0.48,
      scope: 'team:trading',
      order: 'body',
    });
    // Buying NO at 0.70 sells YES at 0.30, into the 0.40 bid.
    expect(await refused('/retail/v1/orders', retail('BUY_SHORT', '0.70'))).toMatchObject({
      code: 'RISK_PRICE_BAND',
      observed: 0.3,
    });
    const passive = await post(stack, '/retail/v1/orders', retail('BUY_LONG', '0.30'), 'bot');
    expect(passive.status).toBe(200);
    const { id } = await json(passive);
    // A modify is judged by its new price, with the order's own intent: to 0.48 it would lift the 0.44 ask.
    expect(await refused(`/retail/v1/order/${id}/modify`, { marketSlug: SYMBOL, price: usd('0.48') })).toMatchObject({
      code: 'RISK_PRICE_BAND',
      observed: 0.48,
    });
    const modified = await post(
      stack,
      `/retail/v1/order/${id}/modify`,
      { marketSlug: SYMBOL, price: usd('0.35') },
      'bot',
    );
    expect(modified.status).toBe(200);
    expect(
      await refused('/retail/v1/order/unknown-order/modify', { marketSlug: SYMBOL, price: usd('0.41') }),
    ).toMatchObject({ code: 'RISK_REFERENCE_STALE', orderId: 'unknown-order' });
  });

  it('with no retail reference, refuses creates and close-positions that would execute at once and lets resting ones through', async () => {
    expect(await refused('/retail/v1/orders', retail('BUY_LONG', undefined, EMPTY))).toMatchObject({
      code: 'RISK_REFERENCE_STALE',
      symbol: EMPTY,
      order: 'body',
    });
    expect(await refused('/retail/v1/order/close-position', { marketSlug: EMPTY })).toMatchObject({
      code: 'RISK_REFERENCE_STALE',
      symbol: EMPTY,
    });
    const resting = await post(stack, '/retail/v1/orders', retail('BUY_LONG', '0.20', EMPTY), 'bot');
    expect(resting.status).toBe(200);
    // The what-if route runs the band too, and sends nothing.
    const sent = retailCalls(stack);
    expect(
      (await json(await post(stack, '/retail/v1/order/check', retail('SELL_LONG', undefined, EMPTY), 'bot'))).code,
    ).toBe('RISK_REFERENCE_STALE');
    expect(retailCalls(stack)).toBe(sent);
  });

  it('holds one retail market-data subscription per slug, shared by the band and a /ws topic', async () => {
    const slug = 'aec-nfl-bal-pit-2026-11-22';
    const topic = `retail.marketDataLite.${slug}`;
    const { retail: venue } = stack.sandbox.state;
    const before = venue.activeSubscriptions();
    // The band reads the slug (an empty book: a market order is refused), which subscribes it once.
    expect(await refused('/retail/v1/orders', retail('BUY_LONG', undefined, slug))).toMatchObject({
      code: 'RISK_REFERENCE_STALE',
      symbol: slug,
    });
    expect(venue.activeSubscriptions()).toBe(before + 1);
    const watcher = await WsTestClient.open(stack.url, { key: stack.keys.all });
    try {
      expect(await watcher.subscribe([topic])).toMatchObject({ type: 'ack' });
      expect(await watcher.next((frame) => frame.topic === topic && frame.type === 'snapshot')).toMatchObject({
        data: { data: { marketSlug: slug } },
      });
      expect(venue.activeSubscriptions()).toBe(before + 1);
    } finally {
      watcher.close();
    }
  });
});

describe('a retail reference older than risk.maxReferenceAgeMs', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startExchangeStack(
      [{ id: 'bot', team: 'trading', scopes: TRADER, participants: [PARTICIPANT], retailAccounts: ['main'] }],
      {
        gateway: (config) => {
          const banded = withBand(config);
          return { ...banded, risk: { ...banded.risk, maxReferenceAgeMs: 1_000 } };
        },
      },
    );
    stack.sandbox.state.engine.insert(rest('SIDE_BUY', 40, 'carol-bid'));
    stack.sandbox.state.engine.insert(rest('SIDE_SELL', 44, 'carol-ask'));
  });
  afterAll(() => stack?.close());

  it('refuses an aggressive create once the quiet market was last heard too long ago, and lets a resting one through', async () => {
    // Lifting the 0.44 ask at 0.45 is inside the band: what-if answers accepted while the book is fresh, then stale once quiet.
    const lift = retail('BUY_LONG', '0.45');
    const seen: string[] = [];
    for (let tries = 0; tries < 100 && seen.at(-1) !== 'RISK_REFERENCE_STALE'; tries++) {
      const answer = await json(await post(stack, '/retail/v1/order/check', lift, 'bot'));
      seen.push(answer.code ?? (answer.accepted ? 'accepted' : 'other'));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect([seen[0], seen.at(-1)]).toEqual(['accepted', 'RISK_REFERENCE_STALE']);
    const sent = retailCalls(stack);
    const res = await post(stack, '/retail/v1/orders', lift, 'bot');
    expect(await json(res)).toMatchObject({
      code: 'RISK_REFERENCE_STALE',
      symbol: SYMBOL,
      maxAgeMs: 1_000,
      reference: 0.42,
      referenceAgeMs: expect.any(Number),
    });
    expect(retailCalls(stack)).toBe(sent);
    expect((await post(stack, '/retail/v1/orders', retail('BUY_LONG', '0.30'), 'bot')).status).toBe(200);
  });
});
