import { COUNTERPARTY, SYMBOL, limit } from './support/exchange-stack.js';
import { type Fleet, startFleet } from './support/fleet.js';
import { caller } from './support/load.js';
import { FIRM, PARTICIPANT, type Stack, eventually, json, startStack } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

/** The net-position market: its position is built at the exchange, outside the gateway, so only the position stream can tell it. */
const POSITION_MARKET = 'aec-nba-lal-gsw-2026-11-21';
const MAX_POSITION = 10;
/** An event with two markets whose symbols share no prefix: the fixture's game, and a props contract the sandbox adds to the same event. */
const EVENT = 'nba-mil-phi-2026-11-21';
const EVENT_MARKETS = ['aec-nba-mil-phi-2026-11-21', 'aec-nbaprops-giannis-points-2026-11-21'];
const EXTRA_GAMES = [{ league: 'nbaprops', away: 'giannis', home: 'points', date: '2026-11-21', eventId: EVENT }];
const MAX_EVENT_OPEN = 2;
const MAX_EVENT_QTY = 20;
const TRADER = ['write:orders' as const, 'read:orders' as const];
const BOTS = [{ id: 'bot-1', team: 'trading', scopes: TRADER, participants: [PARTICIPANT] }];
const SANDBOX_LIMITS = { instruments: 'off', book: 'off', search: 'off', 'trade-stats': 'off' } as const;

const withLimits = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: {
    limits: [
      { scope: 'client', id: 'bot-1', market: POSITION_MARKET, maxNetPosition: MAX_POSITION },
      { scope: 'client', id: 'bot-1', event: EVENT, maxOpenOrders: MAX_EVENT_OPEN, maxOrderQty: MAX_EVENT_QTY },
    ],
  },
});

const order = (symbol: string, side: 'SIDE_BUY' | 'SIDE_SELL', qty: number, price: number, clordId: string) => ({
  ...limit(side, qty, price, { clordId }),
  symbol,
});

describe('exposure from the streams the gateway holds, event narrowing from instrument data, what-if counts', () => {
  let fleet: Fleet;
  const engine = () => fleet.stack.sandbox.state.engine;
  const positionReads = () => fleet.stack.sandbox.state.counterSnapshot()['exchange.calls.positions'] ?? 0;
  const bot = (i: number) => caller(fleet.processes[i].url, fleet.stack.keys['bot-1']);
  const send = (i: number, body: object) =>
    bot(i)('/exchange/v1/trading/orders', {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { prefer: 'wait=20' },
    });
  const check = (i: number, body: object) =>
    bot(i)('/exchange/v1/trading/orders/check', { method: 'POST', body: JSON.stringify(body) });
  const answer = async (res: Response) => ({ status: res.status, body: await json(res) });

  beforeAll(async () => {
    fleet = await startFleet(
      'riskstreams',
      2,
      {
        clients: BOTS,
        gateway: withLimits,
        sandbox: { exchange: { limits: SANDBOX_LIMITS, extraGames: EXTRA_GAMES } },
      },
      withLimits,
    );
  }, 120_000);
  afterAll(() => fleet?.close());

  it('judges the net position from the position stream (no /v1/positions read per order), on every process, the what-if route included', async () => {
    const readsBefore = positionReads();
    // A long of 8 built at the exchange, outside the gateway: alice's resting buy, hit by another firm.
    engine().insert({
      symbol: POSITION_MARKET,
      side: 'SIDE_BUY',
      orderQty: 8,
      price: 40,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: PARTICIPANT,
      clordId: 'stream-long',
    });
    engine().insert({
      symbol: POSITION_MARKET,
      side: 'SIDE_SELL',
      orderQty: 8,
      price: 40,
      timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
      account: COUNTERPARTY,
      clordId: 'stream-hit',
    });
    expect(engine().position(PARTICIPANT, POSITION_MARKET)).toMatchObject({ netPosition: 8 });
    // The signal: each process's what-if refuses a buy of 3 (8 + 3 = 11) once its position stream delivered the long (before: 3, accepted).
    for (const i of [0, 1]) {
      const refused = await eventually(
        () => check(i, order(POSITION_MARKET, 'SIDE_BUY', 3, 40, `stream-check-${i}`)).then(answer),
        (a) => a.status === 422,
        15_000,
        50,
      );
      expect(refused.body).toMatchObject({
        code: 'RISK_POSITION_LIMIT',
        limit: MAX_POSITION,
        observed: 11,
        scope: 'client:bot-1',
        market: POSITION_MARKET,
      });
    }
    expect(await answer(await send(1, order(POSITION_MARKET, 'SIDE_BUY', 3, 40, 'stream-over')))).toMatchObject({
      status: 422,
      body: { code: 'RISK_POSITION_LIMIT', observed: 11 },
    });
    // Up to the limit passes (8 + 2 = 10), and then its open quantity counts on the other process: 8 + 2 + 1 = 11.
    expect((await send(0, order(POSITION_MARKET, 'SIDE_BUY', 2, 40, 'stream-to-limit'))).status).toBe(200);
    expect(await answer(await send(1, order(POSITION_MARKET, 'SIDE_BUY', 1, 40, 'stream-same-side')))).toMatchObject({
      status: 422,
      body: { code: 'RISK_POSITION_LIMIT', observed: 11 },
    });
    // A sell reduces the long: accepted.
    expect((await send(1, order(POSITION_MARKET, 'SIDE_SELL', 5, 60, 'stream-reduce'))).status).toBe(200);
    const reads = positionReads() - readsBefore;
    process.stdout.write(`net position from the stream: /v1/positions reads during the orders: ${reads}\n`);
    expect(reads).toBe(0);
  });

  it('applies a limit narrowed to an event to every market of the event (found from the instrument data); the what-if reads the counts and reserves nothing', async () => {
    // Order quantity: the event's limit binds in both markets, not elsewhere.
    for (const symbol of EVENT_MARKETS) {
      expect(
        await answer(await send(0, order(symbol, 'SIDE_BUY', MAX_EVENT_QTY + 1, 10, `event-qty-${symbol}`))),
      ).toMatchObject({
        status: 422,
        body: {
          code: 'RISK_MAX_QUANTITY',
          limit: MAX_EVENT_QTY,
          observed: MAX_EVENT_QTY + 1,
          scope: 'client:bot-1',
          event: EVENT,
        },
      });
    }
    expect((await send(0, order(SYMBOL, 'SIDE_BUY', MAX_EVENT_QTY + 1, 10, 'event-qty-elsewhere'))).status).toBe(200);
    // Open orders: one in each market of the event fills the event's count of 2, across processes.
    expect((await send(0, order(EVENT_MARKETS[0], 'SIDE_BUY', 1, 10, 'event-open-1'))).status).toBe(200);
    // The what-if, asked again and again, takes nothing: the second real order still fits.
    for (let i = 0; i < 3; i++)
      expect((await check(i % 2, order(EVENT_MARKETS[1], 'SIDE_BUY', 1, 10, `event-check-${i}`))).status).toBe(200);
    expect((await send(1, order(EVENT_MARKETS[1], 'SIDE_BUY', 1, 10, 'event-open-2'))).status).toBe(200);
    for (const i of [0, 1]) {
      expect(
        await answer(await check(i, order(EVENT_MARKETS[i], 'SIDE_BUY', 1, 10, `event-check-full-${i}`))),
      ).toMatchObject({
        status: 422,
        body: { code: 'RISK_MAX_OPEN_ORDERS', limit: MAX_EVENT_OPEN, observed: MAX_EVENT_OPEN + 1 },
      });
      expect(await answer(await send(i, order(EVENT_MARKETS[i], 'SIDE_BUY', 1, 10, `event-over-${i}`)))).toMatchObject({
        status: 422,
        body: { code: 'RISK_MAX_OPEN_ORDERS', observed: MAX_EVENT_OPEN + 1 },
      });
    }
    // Another market is not the event's.
    expect((await send(1, order(SYMBOL, 'SIDE_BUY', 1, 10, 'event-elsewhere'))).status).toBe(200);
    const inEvent = EVENT_MARKETS.flatMap((symbol) => engine().openOrders(PARTICIPANT, [symbol]));
    expect(inEvent.map((o) => o.clordId).sort()).toEqual(['event-open-1', 'event-open-2']);
  });
});

describe('net positions unknown: fail closed', () => {
  let stack: Stack;
  // An exchange client without read:dropcopy: the position stream is refused, while /v1/positions (read:positions) still answers.
  const scopes = [
    'read:marketdata',
    'read:l2marketdata',
    'read:instruments',
    'read:orders',
    'write:orders',
    'read:reports',
    'read:positions',
    'read:accounts',
    'read:funding',
    'write:funding',
  ] as const;

  beforeAll(async () => {
    stack = await startStack({
      clients: BOTS,
      gateway: withLimits,
      sandbox: {
        exchange: {
          limits: SANDBOX_LIMITS,
          clients: [{ clientId: 'gateway-test', firm: FIRM, users: ['alice', 'bob'], scopes: [...scopes] }],
        },
      },
    });
  }, 60_000);
  afterAll(() => stack?.close());

  it('refuses an opening order under a net-position limit 503 RISK_POSITION_UNKNOWN, sends nothing, and lets other orders and cancels through', async () => {
    const bot = caller(stack.url, stack.keys['bot-1']);
    const send = (body: object) =>
      bot('/exchange/v1/trading/orders', {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { prefer: 'wait=20' },
      });
    const refused = await send(order(POSITION_MARKET, 'SIDE_BUY', 1, 40, 'unknown-1'));
    expect({ status: refused.status, body: await json(refused) }).toMatchObject({
      status: 503,
      body: { code: 'RISK_POSITION_UNKNOWN', order: 'body' },
    });
    expect(stack.sandbox.state.engine.openOrders(PARTICIPANT, [POSITION_MARKET])).toHaveLength(0);
    const elsewhere = await send(order(SYMBOL, 'SIDE_BUY', 1, 10, 'unknown-elsewhere'));
    expect(elsewhere.status).toBe(200);
    const { orderId } = await json(elsewhere);
    expect(
      (await bot('/exchange/v1/trading/orders/cancel', { method: 'POST', body: JSON.stringify({ orderId }) })).status,
    ).toBe(200);
  });
});
