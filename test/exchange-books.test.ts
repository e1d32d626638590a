import { issueAccessToken } from '../apps/sandbox/src/auth/access-token.js';
import { FIRM, PARTICIPANT, type Json, type Stack, api, eventually, json, startStack } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

const SYMBOL = 'aec-nfl-sf-sea-2026-11-22';
const BIDI = 'BiDirectionalStreamMarketData';

/** The sandbox's own REST answer, as the exchange would give it to any client with a token. */
async function upstreamBook(stack: Stack, path: string): Promise<Json> {
  const { state } = stack.sandbox;
  const token = issueAccessToken(state, state.exchangeClients.get('gateway-test')!).accessToken;
  return (
    await fetch(`${stack.sandbox.urls.exchange}${path}`, { headers: { authorization: `Bearer ${token}` } })
  ).json();
}

/** Both sides, a trade (stats), and a book deeper on one side than the default depth. */
function seedBook(stack: Stack): void {
  const { engine } = stack.sandbox.state;
  const gtc = 'TIME_IN_FORCE_GOOD_TILL_CANCEL' as const;
  for (let px = 40; px < 46; px++)
    engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_BUY',
      orderQty: px - 38,
      price: px,
      timeInForce: gtc,
      account: PARTICIPANT,
    });
  engine.insert({
    symbol: SYMBOL,
    side: 'SIDE_SELL',
    orderQty: 9,
    price: 52,
    timeInForce: gtc,
    account: 'firms/OTHERFIRM/users/carol',
  });
  engine.insert({
    symbol: SYMBOL,
    side: 'SIDE_SELL',
    orderQty: 3,
    price: 45,
    timeInForce: gtc,
    account: 'firms/OTHERFIRM/users/carol',
  }); // trades at 45
}

const withoutTime = ({ transactTime, ...rest }: Json) => (expect(transactTime).toEqual(expect.any(String)), rest);

describe('exchange books from the market-data stream', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
    seedBook(stack);
  });
  afterAll(() => stack.close());

  it('answers the book and the BBO from the stream in the REST route’s exact shape, spending no REST call', async () => {
    const { state } = stack.sandbox;
    const restCalls = () => state.counter('exchange.calls.orderBook') + state.counter('exchange.calls.bbo');
    const before = restCalls();

    for (const depth of [undefined, 5, 10]) {
      const query = depth === undefined ? '' : `?depth=${depth}`;
      const res = await api(stack)(`/exchange/v1/orderbook/${SYMBOL}${query}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-book-source')).toBe('stream');
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Number(res.headers.get('age'))).toBeGreaterThanOrEqual(0);
      const body = await json(res);
      const upstream = await upstreamBook(stack, `/v1/orderbook/${SYMBOL}${query}`);
      // The REST route stamps "now"; the stream says when the book last changed.
      expect(withoutTime(body)).toEqual(withoutTime(upstream));
      expect(Date.parse(body.transactTime)).toBe(state.marketDataStreams.lastChange(SYMBOL));
      expect(res.headers.get('last-modified')).toBe(new Date(Date.parse(body.transactTime)).toUTCString());
    }
    const bbo = await api(stack)(`/exchange/v1/orderbook/${SYMBOL}/bbo`);
    expect(bbo.headers.get('x-book-source')).toBe('stream');
    expect(withoutTime(await json(bbo))).toEqual(withoutTime(await upstreamBook(stack, `/v1/orderbook/${SYMBOL}/bbo`)));

    // Only the comparison reads above went to the sandbox's REST route; the gateway sent none.
    expect(restCalls() - before).toBe(4);
    expect(state.streams.view().byCall).toEqual({ [BIDI]: 1 });
  });

  it('follows book changes, shares the stream with /ws, and lets the symbol go a linger after the last read', async () => {
    const { state } = stack.sandbox;
    const other = 'aec-nfl-gb-chi-2026-11-22';
    const client = await WsTestClient.open(stack.url, { key: stack.keys.all });
    try {
      client.send({ type: 'subscribe', id: 's', topics: [`exchange.marketData.${other}`] });
      await client.next((f) => f.type === 'ack', 10_000);
      expect((await api(stack)(`/exchange/v1/orderbook/${SYMBOL}`)).headers.get('x-book-source')).toBe('stream');
      state.engine.insert({
        symbol: SYMBOL,
        side: 'SIDE_BUY',
        orderQty: 7,
        price: 47,
        timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
        account: PARTICIPANT,
      });
      const book = await eventually(
        async () => json(await api(stack)(`/exchange/v1/orderbook/${SYMBOL}`)),
        (b) => b.bids[0].px === '47',
      );
      expect(book.bids[0]).toEqual({ px: '47', qty: '7' });
      expect(state.streams.view().byCall).toEqual({ [BIDI]: 1 }); // the read and the /ws topic on one stream
      expect(state.marketDataStreams.openStreams({ symbol: SYMBOL })).toBe(1);

      // No read for the linger: the symbol leaves the stream; the /ws topic keeps it open.
      await eventually(
        async () => state.marketDataStreams.openStreams({ symbol: SYMBOL }),
        (n) => n === 0,
        15_000,
        200,
      );
      expect(state.marketDataStreams.openStreams({ symbol: other })).toBe(1);
      expect(state.counter(`grpc.streams.opened.${BIDI}`)).toBe(1);
    } finally {
      client.close();
    }
  }, 30_000);
});

describe('exchange books without a market-data stream', () => {
  it('falls back to the REST route when the exchange refuses the stream', async () => {
    const stack = await startStack({
      sandbox: {
        exchange: {
          clients: [
            {
              clientId: 'gateway-test',
              firm: FIRM,
              users: ['alice', 'bob'],
              scopes: ['read:l2marketdata', 'read:instruments'],
            },
          ],
        },
      },
    });
    try {
      seedBook(stack);
      const { state } = stack.sandbox;
      const res = await api(stack)(`/exchange/v1/orderbook/${SYMBOL}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-book-source')).toBe('upstream');
      expect((await json(res)).bids[0]).toEqual({ px: '45', qty: '4' });
      expect(state.counter('grpc.marketData.refused.missing_scope')).toBe(1);
      expect(state.counter('exchange.calls.orderBook')).toBe(1);
      // The refusal holds reads on REST for a while instead of a stream attempt per read.
      expect((await api(stack)(`/exchange/v1/orderbook/${SYMBOL}`)).headers.get('x-book-source')).toBe('upstream');
      expect(state.counter('grpc.marketData.refused.missing_scope')).toBe(1);
      // After that while the stream is tried again, behind a read answered over REST.
      await new Promise((resolve) => setTimeout(resolve, 5_100));
      expect((await api(stack)(`/exchange/v1/orderbook/${SYMBOL}`)).headers.get('x-book-source')).toBe('upstream');
      await eventually(
        async () => state.counter('grpc.marketData.refused.missing_scope'),
        (refused) => refused === 2,
      );
      expect(state.counter('exchange.calls.orderBook')).toBe(3);
    } finally {
      await stack.close();
    }
  });
});
