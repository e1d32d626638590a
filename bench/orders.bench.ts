// `npm run bench orders`: only the order insert path of `npm run bench exchange` (bench/exchange-orders.ts),
// each part in a process of its own: the gateway's insert with the idempotency record and journal on and
// off (and risk on and off), against the sandbox directly, in the same run, paced before and after a
// saturation phase. BENCH_ORDERS_BASELINE=<another build's dist/apps/gateway/src/main.js> adds that
// build's `full` and `bare` to the same rounds.
import { rmSync } from 'node:fs';

import { startPostgres } from '../test/support/redis-server.js';
import { orderInsertBench, pinPostgres } from './exchange-orders.js';

export async function run(): Promise<Record<string, unknown>> {
  const postgres = await startPostgres();
  try {
    if (postgres.process.pid !== undefined) pinPostgres(postgres.process.pid);
    return await orderInsertBench({
      url: postgres.url,
      appUrl: postgres.appUrl,
      kind: 'PostgreSQL server (test/support startPostgres: loopback, fsync off, synchronous_commit off)',
      pid: postgres.process.pid,
    });
  } finally {
    postgres.process.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    rmSync(postgres.dir, { recursive: true, force: true });
  }
}
