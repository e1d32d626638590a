import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type GatewayProcess, spawnGateway } from './support/gateway-process.js';
import { limit, startExchangeStack } from './support/exchange-stack.js';
import type { Stack } from './support/stack.js';

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

  it('sends every insert with neither idempotency record nor journal record', async () => {
    const embeddedDir = join(dir, 'journal');
    gateway = await spawnGateway({ ...stack.configInput, journal: { enabled: false, embeddedDir } });
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
  }, 120_000);
});
