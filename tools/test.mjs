// `npm test`: every test, in two jest runs.
//
// Test files that start gateway processes (fleets judged by the sandbox under their own faults: busy
// loops, Redis outages, a stalling proxy, SIGKILL) run one at a time, after the others. Two of them at
// once on the two cores judged each other's load rather than their own: each raises its judge above its
// subjects (test/support/harness-priority.ts), so two busy judges starved the other file's gateways
// beyond the fault that file sets up. Files that spawn busy loops run there too (they starve whatever
// runs beside them). Every other file runs two at a time, as before.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';

const FLEET = /\b(spawnGateway|spawnFleet|startFleet)\(|'for\(;;\)\{\}'/;
const fleets = readdirSync('test')
  .filter((name) => name.endsWith('.test.ts') && FLEET.test(readFileSync(`test/${name}`, 'utf8')))
  .map((name) => `test/${name.replace(/\./g, '\\.')}$`);

const jest = createRequire(import.meta.url).resolve('jest/bin/jest');
const run = (args) =>
  spawnSync(process.execPath, [jest, ...process.argv.slice(2), ...args], { stdio: 'inherit' }).status ?? 1;

// `npm test -- <jest arguments>` (a path, -t …): one jest run, as asked.
if (process.argv.length > 2) process.exit(run([]));

const others = run(['--testPathIgnorePatterns', '/node_modules/', ...fleets]);
const serial = fleets.length === 0 ? 0 : run(['--runInBand', ...fleets]);
process.exit(others || serial);
