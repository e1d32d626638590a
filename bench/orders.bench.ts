// `npm run bench orders`: only the order insert path of `npm run bench exchange` (bench/exchange-orders.ts):
// the gateway's insert with the idempotency record and journal on and off (and risk on and off), against
// the sandbox directly, in the same run, paced and at saturation. For measuring the order path alone
// without the book figures first (a few minutes instead of many).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Logger } from '@nestjs/common';

import { startSandbox } from '../apps/sandbox/src/sandbox.js';
import { startPostgres } from '../test/support/redis-server.js';
import { ORDER_FIRMS, orderInsertBench } from './exchange-orders.js';

export async function run(): Promise<Record<string, unknown>> {
  Logger.overrideLogger(false);
  const keyDir = mkdtempSync(join(tmpdir(), 'orders-bench-'));
  const sandbox = await startSandbox({
    ports: { auth: 0, exchange: 0, grpc: 0, retail: 0, catalog: 0 },
    keyDir,
    logLevel: 'silent',
    exchange: {
      tokenTtlSeconds: 3_600,
      limits: { 'order-entry': 'off' },
      // Clients 0 and 1 are the book bench's in `npm run bench exchange`; the order targets are clients 2-6 there and here.
      clients: [{ clientId: 'bench', firm: 'BENCH', users: ['alice'] }, { clientId: 'bench-unused', firm: 'BENCH', users: ['alice'] }, ...ORDER_FIRMS.map((firm) => ({ clientId: firm.toLowerCase(), firm, users: ['alice'] }))],
    },
  });
  const postgres = await startPostgres();
  try {
    return await orderInsertBench(sandbox, { url: postgres.url, appUrl: postgres.appUrl, kind: 'PostgreSQL server (test/support startPostgres: loopback, fsync off, synchronous_commit off)' });
  } finally {
    postgres.process.kill('SIGTERM');
    await sandbox.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    rmSync(postgres.dir, { recursive: true, force: true });
    rmSync(keyDir, { recursive: true, force: true });
  }
}
