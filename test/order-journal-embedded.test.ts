import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { type GatewayProcess, spawnGateway } from './support/gateway-process.js';
import { limit, startExchangeStack } from './support/exchange-stack.js';
import type { Stack } from './support/stack.js';

const run = promisify(execFile);

// With no database configured (npm start), the gateway journals on the embedded default: PGlite in a
// folder, the same SQL. Checked in a gateway process (PGlite's WASM is loaded there, as in production).

describe('the embedded journal (no database configured)', () => {
  let stack: Stack;
  let gateway: GatewayProcess | undefined;
  let dir: string;
  beforeAll(async () => {
    stack = await startExchangeStack();
    dir = mkdtempSync(join(tmpdir(), 'gateway-embedded-journal-'));
  });
  afterAll(async () => {
    await gateway?.stop();
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('journals orders and keeps idempotency records in PGlite, and npm run journal:verify checks its chain', async () => {
    gateway = await spawnGateway({ ...stack.configInput, journal: { embeddedDir: join(dir, 'journal') } });
    const place = () =>
      fetch(`${gateway!.url}/exchange/v1/trading/orders`, {
        method: 'POST',
        body: JSON.stringify(limit('SIDE_BUY', 1, 25)),
        headers: {
          authorization: `Bearer ${stack.keys.all}`,
          'content-type': 'application/json',
          'idempotency-key': 'embedded-1',
        },
      });
    const first = await place();
    expect(first.status).toBe(200);
    const again = await place();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(stack.sandbox.state.counter('exchange.calls.insertOrder')).toBe(1);
    await gateway.stop();
    gateway = undefined;

    const { stdout } = await run(process.execPath, [
      'dist/tools/journal-verify.js',
      '--embedded',
      join(dir, 'journal'),
    ]);
    // received, sent, answer; the replay's received and replayed: five records, chained.
    expect(stdout).toContain('journal chain intact: 5 records verified');
  }, 120_000);
});
