// nginx with proxy_cache in front of the sandbox catalog: the peer an operator reaches for, as a
// baseline of `npm run bench catalog`. Found like the tests find redis-server (Debian's package,
// /usr/sbin/nginx, or on the PATH); run from a temporary prefix (config, pid, logs, cache and temp
// paths all under it, `daemon off`, one process), so it needs no root and leaves nothing behind.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CANDIDATES = ['/usr/sbin/nginx', 'nginx'];

/** The nginx binary to run, or undefined when none answers `nginx -v`. */
export function findNginx(): string | undefined {
  return CANDIDATES.find((binary) => spawnSync(binary, ['-v'], { stdio: 'ignore' }).status === 0);
}

/** A loopback port free at the time of asking (nginx cannot be told port 0 and report it back). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface RunningNginx {
  /** Origin + the catalog path prefix: `${url}/v1/sports` is the sandbox's `/v1/sports`, cached. */
  url: string;
  close(): Promise<void>;
}

/**
 * One worker, no master (`master_process off`): the whole server is one process, pinned with
 * `pin` (a taskset CPU list) like the gateway. The Authorization header must equal `authorization`,
 * or 401: authentication stays on for every contestant. Answers are cached for an hour whatever the
 * upstream's headers say; the access log is written (buffered) as the gateway writes its access line.
 */
export async function startNginx(
  binary: string,
  upstream: string,
  authorization: string,
  pin: string | undefined,
): Promise<RunningNginx> {
  const prefix = mkdtempSync(join(tmpdir(), 'catalog-nginx-'));
  const port = await freePort();
  const { hostname, port: upstreamPort } = new URL(upstream);
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
master_process off;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 4096; }
http {
  access_log ${prefix}/access.log combined buffer=64k flush=1s;
  client_body_temp_path ${prefix}/client_body;
  proxy_temp_path ${prefix}/proxy_temp;
  fastcgi_temp_path ${prefix}/fastcgi_temp;
  uwsgi_temp_path ${prefix}/uwsgi_temp;
  scgi_temp_path ${prefix}/scgi_temp;
  proxy_cache_path ${prefix}/cache levels=1:2 keys_zone=catalog:10m max_size=256m inactive=60m use_temp_path=off;
  keepalive_requests 1000000;
  upstream catalog { server ${hostname}:${upstreamPort}; keepalive 8; }
  server {
    listen 127.0.0.1:${port};
    location / {
      if ($http_authorization != "${authorization}") { return 401; }
      proxy_pass http://catalog;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_cache catalog;
      proxy_cache_valid 200 404 1h;
      proxy_cache_lock on;
      proxy_ignore_headers Cache-Control Expires Set-Cookie;
      add_header X-Cache $upstream_cache_status;
    }
  }
}
`,
  );
  const command = pin === undefined ? [binary] : ['taskset', '-c', pin, binary];
  const child: ChildProcess = spawn(
    command[0],
    [...command.slice(1), '-p', prefix, '-c', conf, '-e', join(prefix, 'error.log')],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(prefix, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const res = await fetch(`${url}/v1/sports`, { headers: { authorization } });
      await res.arrayBuffer();
      if (res.status === 200) return { url, close };
    } catch {
      // Not listening yet.
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      const log = (() => {
        try {
          return readFileSync(join(prefix, 'error.log'), 'utf8');
        } catch {
          return '';
        }
      })();
      await close();
      throw new Error(`nginx did not start: ${log.trim().split('\n').slice(-3).join(' | ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
