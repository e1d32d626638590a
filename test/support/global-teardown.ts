import { readFileSync, rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const pidFile = process.env.TEST_REDIS_PID_FILE;
  if (!pidFile) return;
  try {
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGTERM');
  } catch {
    // already gone
  }
  rmSync(pidFile, { force: true });
}
