// One load run in its own thread, keeping every 2xx response time at full precision (autocannon's own
// histogram counts whole milliseconds, too coarse to see what a gateway adds under 1 ms).
//
// Saturation (no rate): autocannon, closed loop, each connection sending its next request as soon as
// the previous one is answered.
// Fixed rate: an open-loop pacer. autocannon's own rate option is not one: each connection sends its
// share of a second's requests back to back as soon as the second starts, then waits for the next
// second, so "1,000 req/s" arrives as a burst at saturation every second and the latencies measured
// are that burst's queueing. Here request i is due at start + i / rate and is sent then, whatever
// the previous answers; its time is measured from when it was due, not from when a connection was
// free (no coordinated omission: a slow answer that holds the next request back is counted in both).
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

import { Pool } from 'undici';

export interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  connections: number;
  durationSeconds: number;
  /** Requests per second over all connections, evenly spaced; absent: as fast as the server answers (saturation). */
  overallRate?: number;
  /** POST a JSON order instead of a GET: this body with a `clordId` of `clordIdPrefix` and the request's number, unique per request. */
  order?: { body: Record<string, unknown>; clordIdPrefix: string };
}

export interface LoadRun {
  /** Response times of the 2xx answers, in ms, in arrival order. */
  timesMs: Float64Array;
  elapsedSeconds: number;
  failures: number;
  /** This load generator's own CPU time over the recorded part, µs (it shares a core with the peers). */
  cpuUs: number;
  /**
   * Paced runs: this load generator's own stalls over the recorded part, ms: its event-loop delay's max, and
   * how late its latest request was handed to the pool after it was due (both count in the times measured from
   * the due time); and the most requests seen waiting in the pool for a free connection (0: each request was
   * written when it was handed over).
   */
  stalls?: { eventLoopDelayMaxMs: number; sentLateMaxMs: number; queuedMax: number };
}

interface Result {
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface Instance {
  on(
    event: 'response',
    listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void,
  ): void;
}
// autocannon ships no types; this is the part of its API used here.
const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: object,
  done: (error: Error | null, result: Result) => void,
) => Instance;

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

function finish(
  times: number[],
  startedMs: number,
  failures: number,
  cpuAt: NodeJS.CpuUsage,
  stalls?: LoadRun['stalls'],
): void {
  const timesMs = new Float64Array(new ArrayBuffer(times.length * Float64Array.BYTES_PER_ELEMENT));
  timesMs.set(times);
  const cpu = process.cpuUsage(cpuAt);
  const run: LoadRun = {
    timesMs,
    elapsedSeconds: (nowMs() - startedMs) / 1000,
    failures,
    cpuUs: cpu.user + cpu.system,
    stalls,
  };
  if (parentPort) parentPort.postMessage(run, [timesMs.buffer as ArrayBuffer]);
  // A process of its own (bench/orders-processes.ts): the times as a plain array over IPC, then exit.
  else process.send?.({ ...run, timesMs: Array.from(timesMs) }, () => process.exit(0));
}

/** The i-th request's method and body: an order gets its own clordId, so each is a new order (none replayed). */
function requestShape(spec: LoadSpec): {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: () => string | undefined;
} {
  if (!spec.order) return { method: 'GET', headers: spec.headers, body: () => undefined };
  const head = JSON.stringify(spec.order.body).slice(0, -1);
  const prefix = `${spec.order.clordIdPrefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}-`;
  let n = 0;
  return {
    method: 'POST',
    headers: { ...spec.headers, 'content-type': 'application/json' },
    body: () => `${head},"clordId":"${prefix}${n++}"}`,
  };
}

function saturate(spec: LoadSpec): void {
  const times: number[] = [];
  const started = nowMs();
  const cpuAt = process.cpuUsage();
  const shape = requestShape(spec);
  const requests = spec.order
    ? [
        {
          method: shape.method,
          headers: shape.headers,
          setupRequest: (req: object) => ({ ...req, body: shape.body() }),
        },
      ]
    : undefined;
  const instance = autocannon(
    {
      url: spec.url,
      headers: shape.headers,
      method: shape.method,
      requests,
      connections: spec.connections,
      duration: spec.durationSeconds,
    },
    (error, result) => {
      if (error) throw error;
      finish(times, started, result.non2xx + result.errors + result.timeouts, cpuAt);
    },
  );
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode >= 200 && statusCode < 300) times.push(responseTimeMs);
  });
}

async function pace(spec: LoadSpec, rate: number): Promise<void> {
  const url = new URL(spec.url);
  const pool = new Pool(url.origin, { connections: spec.connections, pipelining: 1 });
  const path = url.pathname + url.search;
  const total = Math.round(rate * spec.durationSeconds);
  const times: number[] = [];
  let failures = 0;
  const shape = requestShape(spec);
  const request = () => pool.request({ method: shape.method, path, headers: shape.headers, body: shape.body() });
  const send = (dueMs: number) =>
    request()
      .then(async (res) => {
        await res.body.dump();
        if (res.statusCode >= 200 && res.statusCode < 300) times.push(nowMs() - dueMs);
        else failures++;
      })
      .catch(() => {
        failures++;
      });
  // This thread and its connections start cold: a fifth of a second at the same pace first, not recorded.
  await paced(rate, Math.round(rate / 5), () =>
    request()
      .then((res) => res.body.dump())
      .catch(() => undefined),
  );
  const started = nowMs();
  const cpuAt = process.cpuUsage();
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const { lateMaxMs: sentLateMaxMs, queuedMax } = await paced(rate, total, send, () => pool.stats.queued);
  delay.disable();
  await pool.close();
  finish(times, started, failures, cpuAt, { eventLoopDelayMaxMs: delay.max / 1e6, sentLateMaxMs, queuedMax });
}

/**
 * Calls `send` `count` times, the i-th at start + i / rate; a late timer sends its backlog at once, each with
 * its own due time. Resolves with the latest send after its due time (ms) and the most `queued()` read after sends.
 */
async function paced(
  rate: number,
  count: number,
  send: (dueMs: number) => Promise<unknown>,
  queued: () => number = () => 0,
): Promise<{ lateMaxMs: number; queuedMax: number }> {
  const intervalMs = 1000 / rate;
  const pending: Promise<unknown>[] = [];
  const started = nowMs();
  let sent = 0;
  let lateMax = 0;
  let queuedMax = 0;
  while (sent < count) {
    const now = nowMs();
    while (sent < count && started + sent * intervalMs <= now) {
      const due = started + sent++ * intervalMs;
      lateMax = Math.max(lateMax, now - due);
      pending.push(send(due));
    }
    queuedMax = Math.max(queuedMax, queued());
    const nextDue = started + sent * intervalMs;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, nextDue - nowMs())));
  }
  await Promise.all(pending);
  return { lateMaxMs: lateMax, queuedMax };
}

// In a worker thread the spec is its workerData; in a process of its own, the LOAD_SPEC environment variable.
const spec = (workerData ?? JSON.parse(process.env.LOAD_SPEC ?? '{}')) as LoadSpec;
if (spec.overallRate) await pace(spec, spec.overallRate);
else saturate(spec);
