import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type GatewayProcess, spawnGateway } from './support/gateway-process.js';
import { limit, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

// `journal.enabled: false` is the bench's switch (npm run bench exchange measures what the journal and
// the idempotency record add): the order path then skips both and sends each call as it came.

describe('journal.enabled false (bench and diagnostic switch)', () => {
  let stack: Stack;
  let gateway: GatewayProcess | undefined;
  let dir: string;
  beforeAll(async () => {
    stack = await startExchangeStack();
    dir = mkdtempSync(join(tmpdir(), 'gateway-journal-off-'));
  });
  afterAll(async () => {
    await gateway?.stop();
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends every insert with neither idempotency record nor journal record, the order stream events included', async () => {
    const embeddedDir = join(dir, 'journal');
    gateway = await spawnGateway({ ...stack.configInput, journal: { enabled: false, embeddedDir } });
    // A client on the order stream: the instance then holds it and sees every execution of these orders.
    const orders = `exchange.orders.${PARTICIPANT}`;
    const client = await WsTestClient.open(gateway.url, { key: stack.keys.all });
    client.send({ type: 'subscribe', id: 'o', topics: [orders] });
    await client.next((f) => f.type === 'ack', 10_000);
    const place = (clordId: string) =>
      fetch(`${gateway!.url}/exchange/v1/trading/orders`, {
        method: 'POST',
        body: JSON.stringify({ ...limit('SIDE_BUY', 1, 25), clordId }),
        headers: {
          authorization: `Bearer ${stack.keys.all}`,
          'content-type': 'application/json',
          'idempotency-key': 'switch-1',
        },
      });
    const first = await place('switch-a');
    expect(first.status).toBe(200);
    // Another body under the same key: with the journal on this is 422; here it is simply sent.
    const second = await place('switch-b');
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(stack.sandbox.state.counter('exchange.calls.insertOrder')).toBe(2);
    for (const clordId of ['switch-a', 'switch-b'])
      await client.next((f) => f.topic === orders && f.data.execution?.order?.clordId === clordId, 10_000);
    client.close();

    // Stopping flushes whatever the journal queued; the same database read by a journaling instance holds
    // no record of either order (before the fix: the order stream's `stream` records of both).
    await gateway.stop();
    gateway = await spawnGateway({ ...stack.configInput, journal: { embeddedDir } });
    for (const clordId of ['switch-a', 'switch-b']) {
      const timeline = await fetch(`${gateway.url}/orders/timeline?clordId=${clordId}`, {
        headers: { authorization: `Bearer ${stack.keys.all}` },
      });
      expect({ clordId, status: timeline.status, body: await timeline.text() }).toMatchObject({ status: 404 });
    }
  }, 120_000);
});
