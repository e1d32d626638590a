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
  await stopPostgres();
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
  const keys = testClientKeys(logDir);
  let lines = 0;
  for (const file of readdirSync(logDir).filter((name) => !name.endsWith(KEYS_SUFFIX))) {
    for (const line of readFileSync(join(logDir, file), 'utf8').split('\n')) {
      lines++;
      for (const [what, shape] of SECRET_SHAPES)
        if (shape.test(line)) findings.push(`${what} in ${file}: ${line.slice(0, 160)}…`);
      if (holdsKey(line, keys)) findings.push(`a test client's API key in ${file} (not shown)`);
    }
  }
  rmSync(logDir, { recursive: true, force: true });
  if (findings.length)
    throw new Error(
      `Secret material found in ${findings.length} of ${lines} gateway log lines:\n${findings.slice(0, 10).join('\n')}`,
    );
  process.stdout.write(
    `log scan: ${lines} gateway log lines of this run hold no key, token, assertion or signature, nor any of the ${keys.size} test clients' keys\n`,
  );
}

/** Where test stacks list the API keys they gave their clients (see stack.ts), next to the log files. */
const KEYS_SUFFIX = '.keys';
/** The random part of a gateway key (after `pmgw_`): 43 base64url characters. */
const KEY_BODY_LENGTH = 43;
const BASE64URL_RUN = /[A-Za-z0-9_-]{43,}/g;

/** Every key body of the run's test clients, so a key is found even with its prefix cut off. */
function testClientKeys(logDir: string): Set<string> {
  const keys = new Set<string>();
  for (const file of readdirSync(logDir).filter((name) => name.endsWith(KEYS_SUFFIX))) {
    for (const key of readFileSync(join(logDir, file), 'utf8').split('\n'))
      if (key !== '') keys.add(key.replace(/^pmgw_/, ''));
  }
  return keys;
}

/** True when some run of key characters in the line contains one of the keys (each window of a key's length is looked up). */
function holdsKey(line: string, keys: Set<string>): boolean {
  for (const [run] of line.matchAll(BASE64URL_RUN)) {
    for (let i = 0; i + KEY_BODY_LENGTH <= run.length; i++)
      if (keys.has(run.slice(i, i + KEY_BODY_LENGTH))) return true;
  }
  return false;
}

/** The run's PostgreSQL: a fast shutdown (SIGINT), then its data folder goes. */
async function stopPostgres(): Promise<void> {
  const pid = Number(process.env.TEST_PG_PID);
  if (!pid) return;
  try {
    process.kill(pid, 'SIGINT');
    for (let i = 0; i < 100; i++) {
      process.kill(pid, 0);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
  if (process.env.TEST_PG_DIR) rmSync(process.env.TEST_PG_DIR, { recursive: true, force: true });
}
