import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Shapes of secret material that must never appear in a log line (keys, tokens, assertions, signatures). */
const SECRET_SHAPES: [string, RegExp][] = [
  ['private key', /PRIVATE KEY-----/],
  ['JWT (token or assertion)', /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/],
  ['bearer credential', /Bearer [A-Za-z0-9._~+/-]{20,}/],
  ['gateway API key', /pmgw_[A-Za-z0-9_-]{40,}/],
  ['Ed25519 signature (base64)', /[A-Za-z0-9+/]{86}==/],
];

export default async function globalTeardown(): Promise<void> {
  const pidFile = process.env.TEST_REDIS_PID_FILE;
  if (pidFile) {
    for (const pid of readFileSync(pidFile, 'utf8').split('\n')) {
      try {
        process.kill(Number(pid), 'SIGKILL'); // nothing to persist: the run's Redis keeps no data
      } catch {
        // already gone
      }
    }
    rmSync(pidFile, { force: true });
  }
  const logDir = process.env.TEST_LOG_DIR;
  if (!logDir) return;
  const findings: string[] = [];
  let lines = 0;
  for (const file of readdirSync(logDir)) {
    for (const line of readFileSync(join(logDir, file), 'utf8').split('\n')) {
      lines++;
      for (const [what, shape] of SECRET_SHAPES) if (shape.test(line)) findings.push(`${what} in ${file}: ${line.slice(0, 160)}…`);
    }
  }
  rmSync(logDir, { recursive: true, force: true });
  if (findings.length) throw new Error(`Secret material found in ${findings.length} of ${lines} gateway log lines:\n${findings.slice(0, 10).join('\n')}`);
  process.stdout.write(`log scan: ${lines} gateway log lines of this run hold no key, token, assertion or signature\n`);
}
