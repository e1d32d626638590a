import { SYMBOL, limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, eventually, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

/** The net position's market: its own limit, away from the notional's. */
const POSITION_MARKET = 'aec-nba-lal-gsw-2026-11-21';
/** No limit counts here: a replace of its orders passes as before. */
const FREE_MARKET = 'aec-nfl-gb-chi-2026-11-22';
const MAX_OPEN_NOTIONAL = 5;
const MAX_POSITION = 10;
const CLIENTS = [
  {
    id: 'rep-bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];
const withLimits = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: {
    limits: [
      { scope: 'client', id: 'rep-bot', market: SYMBOL, maxOpenNotional: MAX_OPEN_NOTIONAL },
      { scope: 'client', id: 'rep-bot', market: POSITION_MARKET, maxNetPosition: MAX_POSITION },
    ],
  },
});

describe('an exchange batch replace moves its orders in the open notional and net position counts (Redis), judged against the new values', () => {
  let stack: Stack;
  const engine = () => stack.sandbox.state.engine;
  const send = (path: string, body: unknown) => post(stack, path, body, 'rep-bot', { prefer: 'wait=20' });
  const insert = (body: object) => send('/exchange/v1/trading/orders', body);
  const replace = (...requests: object[]) => send('/exchange/v1/trading/orders/replace/list', { requests });
  const answer = async (res: Response) => ({ status: res.status, body: await json(res) });
  /** An order rested through the gateway (its share counted): its id. */
  const rest = async (body: object) => {
    const res = await insert(body);
    expect(res.status).toBe(200);
    return (await json(res)).orderId as string;
  };
  /** A replace meant to be refused: its answer, the upstream calls it made (none), and whether the orders' terms at the exchange stayed. */
  const refused = async (requests: object[], ids: string[]) => {
    const before = upstreamCalls(stack);
    const terms = ids.map((id) => engine().order(id));
    const res = await replace(...requests);
    const kept = JSON.stringify(ids.map((id) => engine().order(id))) === JSON.stringify(terms);
    return { ...(await answer(res)), sent: upstreamCalls(stack) - before, kept };
  };

  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, { redis: true, gateway: withLimits });
  });
  afterAll(() => stack?.close());

  it('refuses a replace past the open notional (all items or none, nothing sent), counts one that fits, and frees room on a shrink', async () => {
    // Buys at 30 cents: $3.00 and $0.60 of the $5.
    const a = await rest(limit('SIDE_BUY', 10, 30, { clordId: 'rep-a' }));
    const b = await rest(limit('SIDE_BUY', 2, 30, { clordId: 'rep-b' }));

    // 20 × $0.30 = $6 in place of $3: $6.60 over the $5.
    expect(await refused([{ orderId: a, orderQty: '20' }], [a])).toMatchObject({
      status: 422,
      sent: 0,
      kept: true,
      body: {
        code: 'RISK_OPEN_NOTIONAL',
        limit: MAX_OPEN_NOTIONAL,
        observed: 6.6,
        scope: 'client:rep-bot',
        market: SYMBOL,
        order: 'body.requests.0',
      },
    });
    // A new price counts at the order's own side (a buy: its price): 10 × $0.50 = $5, $5.60 in all.
    expect(await refused([{ orderId: a, price: '50' }], [a])).toMatchObject({
      status: 422,
      sent: 0,
      kept: true,
      body: { code: 'RISK_OPEN_NOTIONAL', observed: 5.6 },
    });
    // A batch whose first item fits ($3.60 → $4.20) and second does not ($5.40): refused whole, naming the second.
    expect(
      await refused(
        [
          { orderId: a, orderQty: '12' },
          { orderId: b, orderQty: '6' },
        ],
        [a, b],
      ),
    ).toMatchObject({
      status: 422,
      sent: 0,
      kept: true,
      body: { code: 'RISK_OPEN_NOTIONAL', observed: 5.4, order: 'body.requests.1' },
    });
    // The first item's hold was given back: $1.20 more fits the $3.60 still counted ($4.80), checked without sending.
    expect((await send('/exchange/v1/trading/orders/check', limit('SIDE_BUY', 4, 30))).status).toBe(200);

    // 14 × $0.30 = $4.20: $4.80 in all fits, is sent, and stays counted: $0.30 more is refused at $5.10.
    const grown = await replace({ orderId: a, orderQty: '14' });
    expect(grown.status).toBe(200);
    expect((await json(grown)).responses).toEqual([{ orderId: a }]);
    expect(engine().order(a)).toMatchObject({ orderQty: 14 });
    expect(await answer(await insert(limit('SIDE_BUY', 1, 30, { clordId: 'rep-over' })))).toMatchObject({
      status: 422,
      body: { code: 'RISK_OPEN_NOTIONAL', observed: 5.1 },
    });

    // Shrunk to 5 ($1.50): the room comes back.
    expect((await replace({ orderId: a, orderQty: '5' })).status).toBe(200);
    expect(engine().order(a)).toMatchObject({ orderQty: 5 });
    expect((await insert(limit('SIDE_BUY', 1, 30, { clordId: 'rep-after-shrink' }))).status).toBe(200);
  });

  it('refuses a replace past the net position, counts one within it; an order no limit counts is replaced as before', async () => {
    const order = (qty: number, clordId: string) => ({
      ...limit('SIDE_BUY', qty, 40, { clordId }),
      symbol: POSITION_MARKET,
    });
    // The position comes from the stream: wait until it is known (a what-if buy passes).
    await eventually(
      () => send('/exchange/v1/trading/orders/check', order(1, 'pos-known')).then((res) => res.status),
      (status) => status === 200,
      15_000,
      50,
    );
    const id = await rest(order(4, 'pos-rest'));

    expect(await refused([{ orderId: id, orderQty: '12' }], [id])).toMatchObject({
      status: 422,
      sent: 0,
      kept: true,
      body: { code: 'RISK_POSITION_LIMIT', limit: MAX_POSITION, observed: 12, market: POSITION_MARKET },
    });
    expect((await replace({ orderId: id, orderQty: '9' })).status).toBe(200);
    expect(engine().order(id)).toMatchObject({ orderQty: 9 });
    // 9 open on the buy side + 2 = 11: refused; + 1 = 10 passes.
    expect(await answer(await insert(order(2, 'pos-over')))).toMatchObject({
      status: 422,
      body: { code: 'RISK_POSITION_LIMIT', observed: 11 },
    });
    expect((await insert(order(1, 'pos-to-limit'))).status).toBe(200);

    const free = await rest({ ...limit('SIDE_BUY', 1, 30, { clordId: 'free' }), symbol: FREE_MARKET });
    expect((await replace({ orderId: free, orderQty: '500' })).status).toBe(200);
    expect(engine().order(free)).toMatchObject({ orderQty: 500 });
  });
});
