// Instructions per catalog cache hit, counted by callgrind: the gateway (API key, admission, cache
// lookup, five cache headers, metrics and access line) against a bare Fastify route sending the same
// bytes, both in the same run. Each side's process holds the same sandbox, gateway and bare server;
// only the one under load differs. Unlike req/s on a shared 2-core machine, an instruction count repeats
// to within about 0.5 % from run to run, so a change of 1 % per request is visible. It counts the
// JavaScript thread only (compilation and GC helper threads run beside it) and user space only: the
// kernel's share of each request (socket reads and writes) is the same for both sides and not in it.
// Needs valgrind (Debian package `valgrind`); without it the result says so and nothing is measured.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const REQUESTS = 5_000;
/** Enough for every hot function to be optimized before counting starts (valgrind runs ~50× slower). */
const WARM_UP = 10_000;
const TARGET = join(dirname(fileURLToPath(import.meta.url)), 'catalog-instructions.target.js');

/** Instructions per request on the main thread of one side, from its callgrind dump. */
async function instructionsPerRequest(
  side: 'gateway' | 'bare',
  outDir: string,
): Promise<{ perRequest: number; failures: number }> {
  const args = [
    '--tool=callgrind',
    '--instr-atstart=no',
    '--separate-threads=yes',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${join(outDir, `${side}.%p`)}`,
    '-q',
  ];
  const { stdout } = await execFileAsync(
    'valgrind',
    [...args, process.execPath, TARGET, side, String(REQUESTS), String(WARM_UP)],
    { maxBuffer: 16 * 1024 * 1024, timeout: 60 * 60_000 },
  );
  const { pid, failures } = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { pid: number; failures: number };
  // Under valgrind (~50× slower) on a loaded machine a request may time out now and then; more than 1 % would skew the count.
  if (failures > REQUESTS / 100)
    throw new Error(`${failures} of the ${side} side's ${REQUESTS} counted requests were not answered 2xx`);
  // One file per thread and dump: `<side>.<pid>.1-01` is the first dump of thread 1, the JavaScript thread.
  const dump = readdirSync(outDir).find((f) => f === `${side}.${pid}.1-01`);
  if (!dump) throw new Error(`no callgrind dump of the ${side} side's main thread in ${outDir}`);
  const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(outDir, dump), 'utf8'));
  if (!total) throw new Error(`no instruction total in ${dump}`);
  return { perRequest: Math.round(Number(total[1]) / REQUESTS), failures };
}

export async function run(): Promise<Record<string, unknown>> {
  try {
    execFileSync('valgrind', ['--version']);
  } catch {
    return { measured: false, reason: 'valgrind is not installed (apt-get install valgrind)' };
  }
  const outDir = mkdtempSync(join(tmpdir(), 'catalog-callgrind-'));
  try {
    // The two sides run at once, one per core. Timing hardly moves an instruction count (it can change
    // how many requests one event-loop turn handles), which the ~0.5 % run-to-run spread includes.
    const [gateway, bare] = await Promise.all([
      instructionsPerRequest('gateway', outDir),
      instructionsPerRequest('bare', outDir),
    ]);
    return {
      measured: true,
      route: '/catalog/v1/sports (1,247 B), local cache hit; bare: a Fastify route sending the same bytes',
      requests: REQUESTS,
      warmUpRequests: WARM_UP,
      gatewayInstructionsPerHit: gateway.perRequest,
      bareFastifyInstructionsPerHit: bare.perRequest,
      bareOverGateway: Number((bare.perRequest / gateway.perRequest).toFixed(3)),
      notAnswered2xx: { gateway: gateway.failures, bare: bare.failures },
      notes: ['Main (JavaScript) thread, user space only; autocannon runs outside valgrind.'],
    };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
