// Run under `valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes` by
// catalog-instructions.bench.ts: serves /catalog/v1/sports (the gateway, API key checked and access
// line formatted, or a bare Fastify route with the same bytes), warms it up with autocannon, then
// switches instrumentation on around exactly N requests and prints the dump's path.
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
const sandbox = await startSandbox({ ports: { auth: 0, exchange: 0, grpc: 0, retail: 0, catalog: 0 }, keyDir: mkdtempSync(join(tmpdir(), 'catalog-ir-')), logLevel: 'silent' });
const gateway = await startGateway(sandbox, 'info');
const body = await (await fetch(`${gateway.url}/catalog/v1/sports`, { headers: gateway.headers })).text();
const bare = await bareFastify(body);
const [url, headers] = side === 'gateway' ? [`${gateway.url}/catalog/v1/sports`, gateway.headers] : [bare.url, {}];
const load = (amount: number) =>
  execFileAsync(process.execPath, [AUTOCANNON_CLI, '-c', '10', '-a', String(amount), ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]), url]);

await load(warmUp);
execFileSync('callgrind_control', ['--instr=on', String(process.pid)]);
await load(requests);
execFileSync('callgrind_control', ['--dump', String(process.pid)]);
execFileSync('callgrind_control', ['--instr=off', String(process.pid)]);
process.stdout.write(`${JSON.stringify({ pid: process.pid })}\n`);
await bare.close();
await gateway.app.close();
await sandbox.close();
process.exit(0);
