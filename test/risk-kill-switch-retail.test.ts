// The kill switch's retail half when the retail API loses answers: a lost cancel-all or a lost read of
// the open orders is tried again, so the brake still leaves none of the scope's retail orders resting
// (and reports none unresolved), against the real sandbox.
import { post, startExchangeStack } from './support/exchange-stack.js';
import {
  PARTICIPANT,
  RETAIL_KEYS,
  type Stack,
  api,
  eventually,
  json,
  pastGatewayRefusals,
  retailBid,
} from './support/stack.js';

const trader = (id: string, team: string) => ({
  id,
  team,
  scopes: ['write:orders' as const, 'read:orders' as const],
  participants: [PARTICIPANT],
  retailAccounts: ['main'],
});
// `solo` is team trading's only client; `twin-a` and `twin-b` share the retail account `main` with it.
const CLIENTS = [trader('solo', 'trading'), trader('twin-a', 'platform'), trader('twin-b', 'platform')];
describe('the kill switch on the retail API when answers are lost', () => {
  let stack: Stack;
  const resting = () => stack.sandbox.state.engine.openOrders(RETAIL_KEYS.main).map((order) => order.id);
  const place = async (client: string, price: string): Promise<string> => {
    const res = await pastGatewayRefusals(() => post(stack, '/retail/v1/orders', retailBid(price), client));
    expect(res.status).toBe(200);
    return (await json(res)).id as string;
  };

  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS);
  });
  afterAll(() => stack?.close());

  it("halt-and-cancel sends a team's cancel-all again after its answers were lost", async () => {
    const ids = [await place('solo', '0.11'), await place('solo', '0.12')];
    expect(resting()).toEqual(expect.arrayContaining(ids));
    // The first two cancel-alls run at the sandbox but their connections drop before an answer.
    stack.sandbox.state.retail.faults.dropAnswers.cancelAllOrders = 2;
    const res = await post(stack, '/admin/risk/states', {
      scope: 'team:trading',
      state: 'halt-and-cancel',
      reason: 'drill, answers lost',
    });
    expect(res.status).toBe(200);
    const { report } = await json(res);
    expect(report.unresolved).toEqual([]);
    expect(stack.sandbox.state.retail.faults.dropAnswers.cancelAllOrders).toBe(0);
    expect(resting()).toEqual([]);
    expect(
      (await post(stack, '/admin/risk/states', { scope: 'team:trading', state: 'active', reason: 'drill over' }))
        .status,
    ).toBe(200);
  });

  it("a dead-man's switch reads a shared account's open orders again after a lost read, and takes only its client's", async () => {
    const mine = await place('twin-a', '0.13');
    const theirs = await place('twin-b', '0.14');
    expect(resting()).toEqual(expect.arrayContaining([mine, theirs]));
    stack.sandbox.state.retail.faults.dropAnswers.openOrders = 1;
    const from = stack.logs.length;
    const armed = await api(stack, 'twin-a')('/risk/v1/dead-man-switch', {
      method: 'POST',
      body: JSON.stringify({ seconds: 1 }),
    });
    expect(armed.status).toBeLessThan(300);
    const fired = await eventually(
      async () => stack.logs.slice(from).find((line) => line.includes("dead-man's switch of twin-a fired")),
      (line) => line !== undefined,
      20_000,
    );
    expect(stack.sandbox.state.retail.faults.dropAnswers.openOrders).toBe(0);
    expect(fired).toMatch(/"unresolved":0/);
    expect(resting()).not.toContain(mine);
    expect(resting()).toContain(theirs);
  });
});
