import { type GatewayProcess, spawnGateway } from './support/gateway-process.js';
import { limit, startExchangeStack } from './support/exchange-stack.js';
import { type Stack, eventually, json, startStack, testJournal } from './support/stack.js';

// An instance killed while an insert is in flight: the next instance on the same journal reads the
// order back from the database and resolves it from the exchange; the client's retry with the same
// key gets the order, and the exchange never sees a second one.

describe('UNKNOWN orders across a restart', () => {
  let stack: Stack;
  let crashed: GatewayProcess | undefined;
  let restarted: Stack | undefined;
  beforeAll(async () => {
    stack = await startExchangeStack();
  });
  afterAll(async () => {
    await crashed?.stop();
    await restarted?.close();
    await stack.close();
  });

  it('resolves an insert a killed instance left in flight, after the restart, without resending it', async () => {
    const { state } = stack.sandbox;
    const journal = { ...testJournal(), inFlightStaleMs: 1_000, resolveSearchesPerMinute: 12 };
    const config = { ...stack.configInput, exchange: { requestTimeoutMs: 10_000 }, journal };
    crashed = await spawnGateway(config);
    state.setFaults({ exchangeDelayMs: { insertOrder: 2_000 } });
    const body = JSON.stringify(limit('SIDE_BUY', 1, 26));
    const headers = {
      authorization: `Bearer ${stack.keys.all}`,
      'content-type': 'application/json',
      'idempotency-key': 'restart-1',
    };
    const lost = fetch(`${crashed.url}/exchange/v1/trading/orders`, { method: 'POST', body, headers }).catch(
      (error: Error) => error,
    );
    // The exchange has the insert (and holds it): the instance dies before its answer.
    await eventually(
      async () => state.counter('exchange.calls.insertOrder'),
      (n) => n === 1,
      10_000,
    );
    crashed.process.kill('SIGKILL');
    // The client lost its connection: no answer came.
    expect(String(await lost)).toMatch(/fetch failed/);
    state.setFaults({ exchangeDelayMs: {} });

    restarted = await startStack({ reuseSandbox: stack.sandbox, gateway: () => config });
    const retry = () => fetch(`${restarted!.url}/exchange/v1/trading/orders`, { method: 'POST', body, headers });
    const answer = await eventually(retry, (res) => res.status === 200, 30_000, 250);
    expect(answer.headers.get('idempotent-replayed')).toBe('true');
    const { orderId } = await json(answer);
    expect(orderId).toEqual(expect.any(String));
    expect(state.counter('exchange.calls.insertOrder')).toBe(1);
    const orders = state.engine.searchOrders({ orderId }).order;
    expect(orders).toHaveLength(1);

    const lookup = await json(
      await fetch(`${restarted.url}/orders/clord/${orders[0]!.clordId}`, {
        headers: { authorization: `Bearer ${stack.keys.all}` },
      }),
    );
    expect(lookup).toMatchObject({ state: 'DONE', status: 200, answer: { orderId } });
  }, 90_000);
});
