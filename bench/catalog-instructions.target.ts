// Run under `valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes` by
// catalog-instructions.bench.ts: serves /catalog/v1/sports (the gateway, API key checked and access
// line formatted, or a bare Fastify route with the same bytes), warms it up with autocannon, then
// switches instrumentation on around exactly N requests and prints its pid (the dump's name) and
// how many of those requests were not answered 2xx.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { Logger } from '@nestjs/common';

import { startSandbox } from '../apps/sandbox/src/sandbox.js';
import { AUTOCANNON_CLI, bareFastify, startGateway } from './catalog.bench.js';

const [side, requests, warmUp] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const execFileAsync = promisify(execFile);

Logger.overrideLogger(false);
const sandbox = await startSandbox({
  ports: { auth: 0, exchange: 0, grpc: 0, retail: 0, catalog: 0 },
  keyDir: mkdtempSync(join(tmpdir(), 'catalog-ir-')),
  logLevel: 'silent',
  catalog: { requestsPerSecondPerAddress: 'off' },
});
const gateway = await startGateway(sandbox, 'info');
const body = await (await fetch(`${gateway.url}/catalog/v1/sports`, { headers: gateway.headers })).text();
const bare = await bareFastify(body);
const [url, headers] = side === 'gateway' ? [`${gateway.url}/catalog/v1/sports`, gateway.headers] : [bare.url, {}];
/** Sends exactly `amount` requests over 10 connections; answers how many were not 2xx. */
async function load(amount: number): Promise<number> {
  const args = [
    AUTOCANNON_CLI,
    '--json',
    '-c',
    '10',
    '-t',
    '120',
    '-a',
    String(amount),
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]),
    url,
  ];
  const { stdout } = await execFileAsync(process.execPath, args, { maxBuffer: 16 * 1024 * 1024, timeout: 15 * 60_000 });
  const result = JSON.parse(stdout) as { non2xx: number; errors: number };
  return result.non2xx + result.errors;
}
// callgrind_control reaches the process through vgdb; where ptrace is restricted it could wait forever.
const control = (command: string) =>
  execFileSync('callgrind_control', [command, String(process.pid)], { timeout: 60_000 });

await load(warmUp);
control('--instr=on');
const failures = await load(requests);
control('--dump');
control('--instr=off');
process.stdout.write(`${JSON.stringify({ pid: process.pid, failures })}\n`);
await bare.close();
await gateway.close();
await sandbox.close();
process.exit(0);
