import { StallProxy } from './support/stall-proxy.js';
import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, journalThrough, json } from './support/stack.js';

// The kill switch cancels whatever the journal does: its records are written beside the cancels, never
// ahead of them. Before, halt-and-cancel waited for the halt's journal record before its first cancel:
// on a stalled database (queued behind a new order's intent, each statement waiting up to
// statementTimeoutMs for a connection and again for its answer) the team's resting orders stayed
// working until after the new order beside the run had been refused 503.

const CLIENTS = [
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];
const RESTING = 3;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('the kill switch while the journal is stalled', () => {
  let stack: Stack;
  let proxy: StallProxy;
  beforeAll(async () => {
    proxy = await StallProxy.start(Number(process.env.TEST_PG_PORT));
    stack = await startExchangeStack(CLIENTS, {
      gateway: (config) => ({ ...config, journal: journalThrough(proxy.port, { statementTimeoutMs: 5_000 }) }),
    });
  });
  afterAll(async () => {
    await stack.close();
    await proxy.close();
  });

  it("cancels the team's resting orders without waiting for the database, while a new order beside it waits and is refused 503", async () => {
    const resting: string[] = [];
    for (let i = 0; i < RESTING; i++) {
      const placed = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 10 + i), 'bot');
      expect(placed.status).toBe(200);
      resting.push((await json(placed)).orderId);
    }
    const working = () =>
      resting.filter((orderId) => stack.sandbox.state.engine.order(orderId)?.state !== 'ORDER_STATE_CANCELED');
    expect(working()).toHaveLength(RESTING);

    proxy.stall();
    // Another team's new order, on another participant: its intent waits for the stalled database, then is refused.
    let workingWhenRefused: string[] | undefined;
    const order = post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 25), 'all', {
      'idempotency-key': 'k-beside-the-kill-switch',
      'x-participant-id': OTHER_PARTICIPANT,
    }).then((res) => ((workingWhenRefused = working()), res));
    await sleep(100);
    const killed = post(stack, '/admin/risk/states', {
      scope: 'team:trading',
      state: 'halt-and-cancel',
      reason: 'runaway bot while the journal stalls',
    });

    const refused = await order;
    expect(refused.status).toBe(503);
    expect(await json(refused)).toMatchObject({ code: 'JOURNAL_UNAVAILABLE', processed: false });
    // The kill switch did not wait for the journal: every resting order was cancelled before the new order's 503.
    expect(workingWhenRefused).toEqual([]);

    proxy.restore();
    const answer = await killed;
    expect(answer.status).toBe(200);
    const { report } = await json(answer);
    expect(report).toMatchObject({ scope: 'team:trading', unresolved: [], remainingOpen: 0 });
    expect(report.cancelled).toHaveLength(RESTING);
  }, 90_000);
});
