import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { stringify } from 'yaml';

import { raiseHarnessPriority } from './harness-priority.js';
import { freePort, subjectCommand } from './redis-server.js';
import type { GatewayConfigInput } from '../../apps/gateway/src/config/gateway-config.schema.js';

export interface GatewayProcess {
  url: string;
  process: ChildProcess;
  /** stdout + stderr of the process so far (JSON log lines). */
  output: () => string;
  stop(): Promise<void>;
}

const MAIN = 'dist/apps/gateway/src/main.js';
const WALL_CLOCK = join(process.cwd(), 'test/support/wall-clock.mjs'); // beside MAIN, from the repository root

/** A wall clock off by `offsetMs` from the start, stepped by the next of `stepsMs` on each SIGUSR2 (test/support/wall-clock.mjs). */
export interface WallClockOptions {
  offsetMs?: number;
  stepsMs?: readonly number[];
}
/** A start takes about a second on idle cores; beside busy loops one took over 20 s before its first log line. */
const STARTUP_WAIT_MS = 45_000;

/**
 * A real gateway process (the compiled build, as production runs it) with the given config,
 * listening on a free port. `npm test` builds first, so dist/ matches the sources.
 */
export async function spawnGateway(
  input: GatewayConfigInput,
  options: { wallClock?: WallClockOptions } = {},
): Promise<GatewayProcess> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build (npm test does)`);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-process-'));
  const configFile = join(dir, 'gateway.yaml');
  writeFileSync(configFile, stringify({ ...input, server: { ...input.server, host: '127.0.0.1', port } }));
  raiseHarnessPriority(); // this process judges the gateway it starts (harness-priority.ts)
  const { wallClock } = options;
  const [command, args] = subjectCommand(process.execPath, wallClock ? ['--import', WALL_CLOCK, MAIN] : [MAIN]);
  const clockEnv = wallClock
    ? {
        TEST_WALL_CLOCK_OFFSET_MS: String(wallClock.offsetMs ?? 0),
        TEST_WALL_CLOCK_STEPS_MS: (wallClock.stepsMs ?? []).join(','),
      }
    : {};
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH, GATEWAY_CONFIG: configFile, LOG_LEVEL: 'info', ...clockEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // Every line also goes to the run's log directory, which global teardown scans for secrets.
  const runLog = process.env.TEST_LOG_DIR
    ? join(process.env.TEST_LOG_DIR, `process-${process.pid}-${port}.log`)
    : undefined;
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (runLog) appendFileSync(runLog, chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + STARTUP_WAIT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway process exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${url}/health/live`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`gateway process did not come up within ${STARTUP_WAIT_MS / 1_000} s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    process: child,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(); // exited, or killed by a test
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
