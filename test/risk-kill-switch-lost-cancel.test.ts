// A halt-and-cancel whose cancels ran at the exchange but whose answers were lost. Before, the report
// called every such order `unresolved` (and the kill-switch alert asked someone to cancel by hand) though
// the run's re-read showed none of them open and the sandbox had them CANCELED. Now an order the last
// read no longer shows is reported `closed` (cancelled by the run or filled first: the run cannot tell
// which), and only what may still rest is unresolved.
import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, json, pastGatewayRefusals } from './support/stack.js';

const CLIENTS = [
  {
    id: 'solo',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];
const RESTING = 3;

describe('the kill switch when the cancels’ answers are lost', () => {
  let stack: Stack;
  const resting = () => stack.sandbox.state.engine.openOrders(PARTICIPANT).map((order) => order.id);

  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS);
  });
  afterAll(() => stack?.close());

  it('reports orders cancelled without an answer as closed, not unresolved, when the re-read shows them gone', async () => {
    const ids: string[] = [];
    for (let i = 0; i < RESTING; i++) {
      const res = await pastGatewayRefusals(() =>
        post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 11 + i), 'solo'),
      );
      expect(res.status).toBe(200);
      ids.push(((await json(res)) as { orderId: string }).orderId);
    }
    expect(resting()).toEqual(expect.arrayContaining(ids));
    // Every cancel runs at the sandbox; its connection drops before the answer.
    stack.sandbox.state.setFaults({ exchangeAnswerFaults: { cancelOrder: { every: 1, drop: 1, hold: 0, holdMs: 0 } } });
    const res = await post(stack, '/admin/risk/states', {
      scope: 'team:trading',
      state: 'halt-and-cancel',
      reason: 'drill, cancel answers lost',
    });
    stack.sandbox.state.setFaults({ exchangeAnswerFaults: {} });
    expect(res.status).toBe(200);
    const { report } = (await json(res)) as {
      report: { closed: { orderId: string }[]; unresolved: unknown[]; remainingOpen: number };
    };
    expect(stack.sandbox.state.counterSnapshot()['exchange.answersDropped.cancelOrder'] ?? 0).toBeGreaterThanOrEqual(
      RESTING,
    );
    expect(resting()).toEqual([]);
    expect(report).toMatchObject({ unresolved: [], remainingOpen: 0 });
    expect(report.closed.map((order) => order.orderId).sort()).toEqual([...ids].sort());
    expect(
      (await post(stack, '/admin/risk/states', { scope: 'team:trading', state: 'active', reason: 'drill over' }))
        .status,
    ).toBe(200);
  });
});
