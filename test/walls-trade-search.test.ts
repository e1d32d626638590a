import { SYMBOL, limit, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, json, pastGatewayRefusals } from './support/stack.js';

/**
 * The trade search answers a participant's search with both sides of a trade whole when both are the
 * firm's. Found by a probe: a key of team platform (bob) searched its trades and read team trading's
 * order id and participant on the other side (`buyOrderId`, `buyAccount: …/alice`), where the
 * `exchange.trades` feed hides them; a search by alice's order id found the trade too. Real sandbox.
 */
const R = ['write:orders' as const, 'read:orders' as const, 'read:reports' as const];
const CLIENTS = [
  { id: 'desk', team: 'trading', scopes: R, participants: [PARTICIPANT] },
  { id: 'rival', team: 'platform', scopes: R, participants: [OTHER_PARTICIPANT] },
  { id: 'both', team: 'trading', scopes: R, participants: [PARTICIPANT, OTHER_PARTICIPANT] },
];

interface Trade {
  tradeId: string;
  buyOrderId: string;
  sellOrderId: string;
  buyAccount: string;
  sellAccount: string;
}

describe("the trade search shows a client its own side of a trade, never another team's", () => {
  let stack: Stack;
  let deskOrder: string;
  let rivalOrder: string;
  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS);
    const placed = async (client: string, side: 'SIDE_BUY' | 'SIDE_SELL', clordId: string) => {
      const res = await pastGatewayRefusals(() =>
        post(stack, '/exchange/v1/trading/orders', limit(side, 1, 31, { clordId }), client),
      );
      expect(res.status).toBe(200);
      return ((await json(res)) as { orderId: string }).orderId;
    };
    deskOrder = await placed('desk', 'SIDE_BUY', 'ts-desk');
    rivalOrder = await placed('rival', 'SIDE_SELL', 'ts-rival');
  });
  afterAll(() => stack?.close());

  const search = async (client: string, body: object = {}) => {
    const res = await pastGatewayRefusals(() =>
      post(stack, '/exchange/v1/report/trades/search', { symbol: SYMBOL, pageSize: 50, ...body }, client),
    );
    expect(res.status).toBe(200);
    return ((await json(res)) as { trades: Trade[] }).trades.filter(
      (trade) => trade.buyOrderId === deskOrder || trade.sellOrderId === rivalOrder,
    );
  };

  it("gives each team its side whole and the other side as another firm's (no order id, no participant)", async () => {
    const [rivals] = await search('rival');
    expect(rivals).toMatchObject({
      sellOrderId: rivalOrder,
      sellAccount: OTHER_PARTICIPANT,
      buyOrderId: '',
      buyAccount: '',
    });
    expect(JSON.stringify(await search('rival'))).not.toContain('alice');
    const [desks] = await search('desk');
    expect(desks).toMatchObject({ buyOrderId: deskOrder, buyAccount: PARTICIPANT, sellOrderId: '', sellAccount: '' });
    expect(desks?.tradeId).toBe(rivals?.tradeId);
  });

  it("finds nothing by another team's order id", async () => {
    expect(await search('rival', { orderId: deskOrder })).toEqual([]);
    expect(await search('rival', { orderId: rivalOrder })).toHaveLength(1);
  });

  it('shows both sides to a client holding both participants', async () => {
    expect(await search('both')).toEqual([
      expect.objectContaining({
        buyOrderId: deskOrder,
        buyAccount: PARTICIPANT,
        sellOrderId: rivalOrder,
        sellAccount: OTHER_PARTICIPANT,
      }),
    ]);
  });
});
