// `npm run walks`: how many of the gateway's source files the three walks a maintainer makes most
// cross (issue 29), counted by what runs, not by reading: the sandbox and a gateway in this process
// (the tests' stack: one instance, no Redis, the journal on a PostgreSQL of its own), V8's precise
// coverage with call counts around each walk. A file counts when a function of it is called in each of
// three windows around one walk (after two warm-up walks), and in none of three idle windows of the same
// length (timers and polls run whatever the walk). Sources under apps/gateway/src and libs/*/src only.
// Prints the files of each walk and writes .dev/walks.json.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';

import { startPostgres } from '../test/support/redis-server.js';
import { type Stack, api, startStack } from '../test/support/stack.js';
import { WsTestClient } from '../test/support/ws-client.js';

const WINDOWS = 3;
const SOURCE = /\/dist\/((?:apps\/gateway|libs\/[^/]+)\/src\/.+)\.js$/;

interface Walk {
  name: string;
  /** One walk; `i` numbers them, so a walk that must not repeat itself (a new topic) can vary. */
  once(stack: Stack, i: number): Promise<void>;
}

const session = new Session();
session.connect();

/** The gateway source files with a function called while `work` ran. */
async function filesRunBy(work: () => Promise<void>): Promise<Set<string>> {
  await session.post('Profiler.takePreciseCoverage'); // resets the counts
  await work();
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = new Set<string>();
  for (const script of result) {
    const source = script.url.startsWith('file:') ? SOURCE.exec(fileURLToPath(script.url)) : null;
    if (source && script.functions.some((fn) => fn.ranges[0] !== undefined && fn.ranges[0].count > 0))
      files.add(`${source[1]}.ts`);
  }
  return files;
}

function ok(res: Response, what: string): Promise<unknown> {
  if (!res.ok) throw new Error(`${what}: ${res.status}`);
  return res.json();
}

const SLUG = 'aec-nfl-buf-kc-2026-11-22';

function walks(symbols: readonly string[]): Walk[] {
  return [
    {
      name: 'POST /retail/v1/orders, route to signed send and back',
      once: async (stack) => {
        const res = await api(stack)('/retail/v1/orders', {
          method: 'POST',
          body: JSON.stringify({
            marketSlug: SLUG,
            intent: 'ORDER_INTENT_BUY_LONG',
            price: { value: '0.03', currency: 'USD' },
            quantity: 1,
          }),
        });
        await ok(res, 'retail create');
      },
    },
    {
      name: 'a catalog hit',
      once: async (stack) => {
        const res = await api(stack)('/catalog/v1/events?limit=7&tagSlug=nfl');
        if (res.headers.get('x-cache') !== 'HIT') throw new Error(`catalog: ${res.headers.get('x-cache')}, not a hit`);
        await ok(res, 'catalog hit');
      },
    },
    {
      name: 'a /ws subscribe to exchange.marketData.<symbol> until its snapshot',
      once: async (stack, i) => {
        const topic = `exchange.marketData.${symbols[i % symbols.length]}`;
        const client = await WsTestClient.open(stack.url, { key: stack.keys.all });
        try {
          client.send({ type: 'subscribe', id: 's', topics: [topic] });
          await client.next((frame) => frame.topic === topic && frame.type === 'snapshot', 10_000);
        } finally {
          client.close();
        }
      },
    },
  ];
}

const postgres = await startPostgres();
process.env.TEST_PG_URL = postgres.url;
process.env.TEST_PG_APP_URL = postgres.appUrl;
let stack: Stack | undefined;
try {
  stack = await startStack();
  const open = stack.sandbox.state.engine
    .instruments()
    .filter((instrument) => instrument.state === 'INSTRUMENT_STATE_OPEN')
    .map((instrument) => instrument.symbol);
  await ok(await api(stack)('/catalog/v1/events?limit=7&tagSlug=nfl'), 'catalog miss'); // the walk is the hit
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const report: Record<string, { files: number; list: string[] }> = {};
  let next = 0;
  for (const walk of walks(open)) {
    await walk.once(stack, next++);
    await walk.once(stack, next++);
    const started = performance.now();
    const seen: Set<string>[] = [];
    for (let w = 0; w < WINDOWS; w++) seen.push(await filesRunBy(() => walk.once(stack!, next++)));
    const windowMs = Math.max(200, (performance.now() - started) / WINDOWS);
    const idle = new Set<string>();
    for (let w = 0; w < WINDOWS; w++) {
      const quiet = await filesRunBy(() => new Promise((resolve) => setTimeout(resolve, windowMs)));
      quiet.forEach((file) => idle.add(file));
    }
    const list = [...seen[0]!].filter((file) => seen.every((s) => s.has(file)) && !idle.has(file)).sort();
    report[walk.name] = { files: list.length, list };
    process.stdout.write(`${walk.name}: ${list.length} files\n${list.map((file) => `  ${file}`).join('\n')}\n`);
  }
  mkdirSync('.dev', { recursive: true });
  writeFileSync('.dev/walks.json', `${JSON.stringify(report, null, 2)}\n`);
} finally {
  await stack?.close();
  session.disconnect();
  postgres.process.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
  rmSync(postgres.dir, { recursive: true, force: true });
}
