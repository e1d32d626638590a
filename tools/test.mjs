// `npm test`: every test, in a few jest runs.
//
// Test files that start gateway processes (fleets judged by the sandbox under their own faults: busy
// loops, Redis outages, a stalling proxy, SIGKILL) run one at a time, after the others. Two of them at
// once on the two cores judged each other's load rather than their own: each raises its judge above its
// subjects (test/support/harness-priority.ts), so two busy judges starved the other file's gateways
// beyond the fault that file sets up. Files that spawn busy loops run there too (they starve whatever
// runs beside them), and files marked `@runs-alone` (load tests whose own load is what they judge: 500
// browser connections). Every other file runs two at a time, as before.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';

/** One jest process runs at most this many one-at-a-time files (its heap grows with each, see below). */
const FLEETS_PER_PROCESS = 5;
const FLEET = /\b(spawnGateway|spawnFleet|startFleet)\(|'for\(;;\)\{\}'|@runs-alone/;
const fleets = readdirSync('test')
  .filter((name) => name.endsWith('.test.ts') && FLEET.test(readFileSync(`test/${name}`, 'utf8')))
  .map((name) => `test/${name.replace(/\./g, '\\.')}$`);

const jest = createRequire(import.meta.url).resolve('jest/bin/jest');
const run = (args) =>
  spawnSync(process.execPath, [jest, ...process.argv.slice(2), ...args], { stdio: 'inherit' }).status ?? 1;

// `npm test -- <jest arguments>` (a path, -t …): one jest run, as asked.
if (process.argv.length > 2) process.exit(run([]));

const others = run(['--testPathIgnorePatterns', '/node_modules/', ...fleets]);
// The one-at-a-time files run a few per jest process, each process fresh. One process for all of them
// grew to 1.5 GB of heap by the last (jest keeps each file's ES module registry), and that process is
// the judge: the sandbox stamps arrivals on its event loop, where a long major collection stamps them
// late and bunched. The per-second judgments (a sliding second of one key over 20) failed only deep in
// that one long process in CI, never with their file run on its own; a small heap keeps the judge's
// pauses short.
let serial = 0;
for (let i = 0; i < fleets.length; i += FLEETS_PER_PROCESS) {
  const status = run(['--runInBand', ...fleets.slice(i, i + FLEETS_PER_PROCESS)]);
  if (status !== 0) serial = status;
}
process.exit(others || serial);
