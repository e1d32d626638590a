import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A real redis-server on a free loopback port, without persistence. */
export async function startRedisServer(port?: number): Promise<{ port: number; url: string; process: ChildProcess }> {
  const chosen = port ?? (await freePort());
  const child = spawn('redis-server', ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start within 10 s')), 10_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { port: chosen, url: `redis://127.0.0.1:${chosen}`, process: child };
}

// Self-contained: jest loads its global setup outside the module mapper.

/** One real redis-server for the whole run (jest global setup); its URL reaches the workers through the environment. */
export default async function globalSetup(): Promise<void> {
  const redis = await startRedisServer();
  process.env.TEST_REDIS_URL = redis.url;
  process.env.TEST_REDIS_PORT = String(redis.port);
  const pidFile = join(tmpdir(), `gateway-test-redis-${process.pid}.pid`);
  writeFileSync(pidFile, String(redis.process.pid));
  process.env.TEST_REDIS_PID_FILE = pidFile;
  // Every gateway log line of the run lands here; global teardown scans it for secrets.
  process.env.TEST_LOG_DIR = mkdtempSync(join(tmpdir(), 'gateway-test-logs-'));
  redis.process.unref();
  redis.process.stdout?.destroy();
  redis.process.stderr?.destroy();
}
