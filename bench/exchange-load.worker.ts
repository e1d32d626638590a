// One autocannon run in its own thread, keeping every 2xx response time at full precision: autocannon's
// own histogram counts whole milliseconds, too coarse to see what a gateway adds under 1 ms.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

export interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  connections: number;
  durationSeconds: number;
  /** Requests per second over all connections; absent: as fast as the server answers (saturation). */
  overallRate?: number;
}

export interface LoadRun {
  /** Response times of the 2xx answers, in ms, in arrival order. */
  timesMs: Float64Array;
  elapsedSeconds: number;
  failures: number;
}

interface Result {
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface Instance {
  on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): void;
}
// autocannon ships no types; this is the part of its API used here.
const autocannon = createRequire(import.meta.url)('autocannon') as (options: object, done: (error: Error | null, result: Result) => void) => Instance;

const spec = workerData as LoadSpec;
const times: number[] = [];
const started = process.hrtime.bigint();
const options = {
  url: spec.url,
  headers: spec.headers,
  connections: spec.connections,
  duration: spec.durationSeconds,
  ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
};
const instance = autocannon(options, (error, result) => {
  if (error) throw error;
  const timesMs = new Float64Array(new ArrayBuffer(times.length * Float64Array.BYTES_PER_ELEMENT));
  timesMs.set(times);
  const run: LoadRun = {
    timesMs,
    elapsedSeconds: Number(process.hrtime.bigint() - started) / 1e9,
    failures: result.non2xx + result.errors + result.timeouts,
  };
  parentPort?.postMessage(run, [timesMs.buffer as ArrayBuffer]);
});
instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
  if (statusCode >= 200 && statusCode < 300) times.push(responseTimeMs);
});
