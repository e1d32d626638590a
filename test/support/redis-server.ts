import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// The nice values of test processes and their subjects (test/support/harness-priority.ts). They live
// here because jest's global setup loads this file without the tests' module mapping, so it can
// import no other support file.

/** The nice value the run was started with: jest's main process, which never changes its own. */
export function subjectNice(): number {
  try {
    return getPriority(process.ppid);
  } catch {
    return getPriority();
  }
}

/** `command args` to spawn so the child runs at the run's own nice value, not the harness's raised one. */
export function subjectCommand(command: string, args: readonly string[]): [string, string[]] {
  const lift = subjectNice() - getPriority();
  return lift > 0 ? ['nice', ['-n', String(lift), command, ...args]] : [command, [...args]];
}

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
  // A port found free may be taken before redis-server binds it (a busy suite opens many connections,
  // whose local ports come from the same range): another free port is tried then.
  for (let attempt = 1; ; attempt++) {
    const chosen = port ?? (await freePort());
    try {
      const node = await spawnRedis(chosen, []);
      return { port: chosen, url: `redis://127.0.0.1:${chosen}`, process: node.process };
    } catch (error) {
      if (port !== undefined || attempt === 3 || !(error instanceof RedisExitedError)) throw error;
    }
  }
}

/** redis-server ended before it was ready (its port taken, say); the error names the last of its output. */
class RedisExitedError extends Error {}

// Real Redis Cluster and Sentinel topologies from redis-server processes on loopback ports, no Docker.

const run = promisify(execFile);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RedisNode {
  port: number;
  process: ChildProcess;
}

export interface RedisTopology {
  nodes: RedisNode[];
  /** `127.0.0.1:<port>` of every data node (Cluster) or of every sentinel (Sentinel). */
  addresses: string[];
  stop(): void;
}

/** A redis-server started with `args` on `port`, resolved once it accepts connections. */
export async function spawnRedis(
  port: number,
  args: string[],
  ready = 'Ready to accept connections',
): Promise<RedisNode> {
  const [command, argv] = subjectCommand('redis-server', [
    ...args,
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--protected-mode',
    'no',
  ]);
  const child = spawn(command, argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis-server on ${port} did not start within 10 s: ${output.slice(-300)}`)),
      10_000,
    );
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(
        new RedisExitedError(`redis-server on ${port} exited (${code}) before it was ready: ${output.slice(-300)}`),
      );
    });
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes(ready)) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve();
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
  });
  // Its output is not needed any more; an open pipe would keep the test process alive.
  child.stdout?.destroy();
  child.stderr?.destroy();
  child.unref();
  return { port, process: child };
}

export async function redisCli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args])).stdout;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The lowest port the kernel hands out by itself (for a connect, or a listen on port 0): chosen ports
 * below it, their cluster bus port (+10000) too, are never taken by the run's own client sockets between
 * the check and the bind. A replica's port drawn inside that range was taken so on CI (ci57: "bind: Address
 * already in use", the run-alone group's global setup failed).
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/** `count` free loopback ports whose cluster bus port (+10000) is free too, below the kernel's own range when it leaves room. */
export async function freePorts(count: number): Promise<number[]> {
  const low = ephemeralLow();
  const [from, span] = low - 20_000 >= 2_000 ? [10_000, low - 20_000] : [20_000, 35_000];
  const ports: number[] = [];
  while (ports.length < count) {
    const port = from + Math.floor(Math.random() * span);
    if (!ports.includes(port) && (await isFree(port)) && (await isFree(port + 10_000))) ports.push(port);
  }
  return ports;
}

function topology(nodes: RedisNode[], addresses: string[]): RedisTopology {
  return { nodes, addresses, stop: () => nodes.forEach((node) => node.process.kill('SIGKILL')) };
}

/**
 * A Redis Cluster of 3 masters and 3 replicas (`redis-cli --cluster create … --cluster-replicas 1`).
 * A short node timeout (1 s) so a killed master's replica is promoted within a few seconds.
 */
export async function startRedisCluster(ports: number[]): Promise<RedisTopology> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const nodes = await Promise.all(
    ports.map((port) =>
      spawnRedis(port, [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--dir',
        dir,
        '--cluster-node-timeout',
        '1000',
      ]),
    ),
  );
  const addresses = ports.map((port) => `127.0.0.1:${port}`);
  await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes']);
  await until('the cluster to be ok on every node', async () => {
    const infos = await Promise.all(ports.map((port) => redisCli(port, 'cluster', 'info')));
    return infos.every((info) => info.includes('cluster_state:ok'));
  });
  return topology(nodes, addresses);
}

export const SENTINEL_MASTER = 'pmgw-test';

/** A Sentinel group: one master, one replica, three sentinels (quorum 2, down after 1 s). */
export async function startRedisSentinel(ports: number[]): Promise<RedisTopology> {
  const [masterPort, replicaPort, ...sentinelPorts] = ports;
  const dir = mkdtempSync(join(tmpdir(), 'redis-sentinel-'));
  // Replication writes an RDB file for the replica's sync: into the group's temporary folder.
  const master = await spawnRedis(masterPort, ['--dir', dir]);
  const replica = await spawnRedis(replicaPort, ['--dir', dir, '--replicaof', '127.0.0.1', String(masterPort)]);
  const sentinels = await Promise.all(
    sentinelPorts.map((port) => {
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `sentinel monitor ${SENTINEL_MASTER} 127.0.0.1 ${masterPort} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER} 1000`,
          `sentinel failover-timeout ${SENTINEL_MASTER} 5000`,
          '',
        ].join('\n'),
      );
      return spawnRedis(port, [file, '--sentinel'], 'Sentinel ID');
    }),
  );
  await until('the replica to be in sync', async () =>
    (await redisCli(replicaPort, 'info', 'replication')).includes('master_link_status:up'),
  );
  await until('every sentinel to know the replica and the others', async () => {
    const views = await Promise.all(sentinelPorts.map((port) => redisCli(port, 'sentinel', 'master', SENTINEL_MASTER)));
    return views.every((view) => /num-slaves\s+1/.test(view) && /num-other-sentinels\s+2/.test(view));
  });
  return topology(
    [master, replica, ...sentinels],
    sentinelPorts.map((port) => `127.0.0.1:${port}`),
  );
}

// Self-contained: jest loads its global setup outside the module mapper.

/**
 * The run's Redis (jest global setup): one redis-server, a Redis Cluster (3 masters, 3 replicas) and a
 * Sentinel group (master, replica, 3 sentinels), all real processes; their addresses reach the
 * workers through the environment, their pids global teardown through a file.
 */
export default async function globalSetup(): Promise<void> {
  const [clusterPorts, sentinelPorts] = [await freePorts(6), await freePorts(5)];
  const [redis, cluster, sentinel, postgres] = await Promise.all([
    startRedisServer(),
    startRedisCluster(clusterPorts),
    startRedisSentinel(sentinelPorts),
    startPostgres(),
  ]);
  process.env.TEST_PG_URL = postgres.url;
  process.env.TEST_PG_APP_URL = postgres.appUrl;
  process.env.TEST_PG_PORT = String(postgres.port);
  process.env.TEST_PG_PID = String(postgres.process.pid);
  process.env.TEST_PG_DIR = postgres.dir;
  process.env.TEST_REDIS_URL = redis.url;
  process.env.TEST_REDIS_PORT = String(redis.port);
  process.env.TEST_REDIS_CLUSTER_NODES = cluster.addresses.join(',');
  process.env.TEST_REDIS_SENTINELS = sentinel.addresses.join(',');
  process.env.TEST_REDIS_SENTINEL_NAME = SENTINEL_MASTER;
  const pidFile = join(tmpdir(), `gateway-test-redis-${process.pid}.pid`);
  writeFileSync(
    pidFile,
    [redis.process, ...[...cluster.nodes, ...sentinel.nodes].map((node) => node.process)]
      .map((child) => child.pid)
      .join('\n'),
  );
  process.env.TEST_REDIS_PID_FILE = pidFile;
  // Every gateway log line of the run lands here; global teardown scans it for secrets.
  process.env.TEST_LOG_DIR = mkdtempSync(join(tmpdir(), 'gateway-test-logs-'));
}

// A real PostgreSQL server for the order journal (issue 27): one per run, on a free loopback port,
// its data in a temp folder, fsync off (the run's data is thrown away). PostgreSQL refuses to run as
// root, so as root it runs as the `postgres` user (setpriv, which execs: the pid is the postmaster's).

/** The newest PostgreSQL major's server programs (Debian: /usr/lib/postgresql/<major>/bin). */
export function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root).filter((major) => existsSync(join(root, major, 'bin', 'initdb')))
    : [];
  if (majors.length === 0)
    throw new Error(
      'PostgreSQL server programs not found under /usr/lib/postgresql: apt-get install postgresql (tools/ensure-system-deps.mjs)',
    );
  return join(root, majors.sort((a, b) => Number(b) - Number(a))[0]!, 'bin');
}

/** `program args` run as the postgres user when this process is root. */
function asPostgresUser(program: string, args: string[]): [string, string[]] {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return root
    ? subjectCommand('setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', program, ...args])
    : subjectCommand(program, args);
}

export interface PostgresServer {
  port: number;
  /** The superuser's URL (migrations, tests that tamper). */
  url: string;
  /** The application role's URL (pmgw_app: what the migrations grant it, nothing more). */
  appUrl: string;
  dir: string;
  process: ChildProcess;
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-pg-'));
  if (typeof process.getuid === 'function' && process.getuid() === 0) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout);
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout);
    chownSync(dir, uid, gid);
  }
  const [initdb, initArgs] = asPostgresUser(join(bin, 'initdb'), [
    '-D',
    join(dir, 'data'),
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  await run(initdb, initArgs);
  const port = await freePort();
  const [command, argv] = asPostgresUser(join(bin, 'postgres'), [
    '-D',
    join(dir, 'data'),
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=300',
  ]);
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`postgres did not start within 30 s: ${output.slice(-300)}`)),
      30_000,
    );
    child.once('exit', (code) =>
      reject(new Error(`postgres exited (${code}) before it was ready: ${output.slice(-300)}`)),
    );
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('ready to accept connections')) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve();
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
  });
  child.stdout?.destroy();
  child.stderr?.destroy();
  child.unref();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('CREATE ROLE pmgw_app LOGIN');
  await admin.end();
  return { port, url, appUrl: `postgres://pmgw_app@127.0.0.1:${port}/postgres`, dir, process: child };
}
