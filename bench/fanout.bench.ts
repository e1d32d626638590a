// Fan-out benchmark: the hub against a bare `ws` broadcast server doing the same work, in one run.
// Each case forks this file twice: a server process (measured: CPU, RSS) and a client process
// (N real `ws` clients on 127.0.0.1, one topic each, measuring lag from emit to receipt).
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { WebSocket, WebSocketServer } from 'ws';

import { FanoutHub, MARKET_DATA_POLICY, type TopicSink, TopicSourceRegistry } from '../libs/fanout/src/index.js';

const TOPICS = 10;
const PER_TOPIC_PER_SECOND = 20;
const WARMUP_MS = 1_500;
const MEASURE_MS = 6_000;
const ROUNDS = Number(process.env.FANOUT_BENCH_ROUNDS ?? 3);
/** e.g. FANOUT_BENCH_CLIENTS=2000 to run one size. */
const CLIENT_COUNTS = (process.env.FANOUT_BENCH_CLIENTS ?? '1000,2000,5000').split(',').map(Number);
const LAG_BIN_MS = 0.1; // histogram resolution
const LAG_BINS = 100_000; // up to 10 s

type Impl = 'bare' | 'hub';
type Usage = { cpuPercent: number; loopDelayMaxMs: number };
type ServerReport = Usage & { rssMb: number; rssBaselineMb: number; heapMb: number; heapBaselineMb: number };
type ClientReport = Usage & { received: number; p50: number; p99: number; max: number };

const now = () => performance.timeOrigin + performance.now();
const topicOf = (i: number) => `bench.marketData.m${i % TOPICS}`;

/** A market-data-like update (~400 bytes): five levels a side; `t` (emit time) last for a cheap read. */
function payload(topic: string, n: number): Record<string, unknown> {
  const level = (i: number) => ({ px: String(5_000 + i * 10 + (n % 7)), qty: String(100 + i) });
  const [bids, offers] = [[0, 1, 2, 3, 4].map(level), [5, 6, 7, 8, 9].map(level)];
  return {
    marketSlug: topic,
    bids,
    offers,
    state: 'MARKET_STATE_OPEN',
    transactTime: new Date().toISOString(),
    t: now(),
  };
}

/** Calls `emit(topic)` so that every topic gets PER_TOPIC_PER_SECOND, spread evenly and catching up after a stall. */
function startEmitter(emit: (topic: string) => void): void {
  const intervalMs = 1_000 / (TOPICS * PER_TOPIC_PER_SECOND);
  const start = performance.now();
  let emitted = 0;
  setInterval(() => {
    const due = Math.floor((performance.now() - start) / intervalMs);
    while (emitted < due) emit(topicOf(emitted++));
  }, 1);
}

async function listen(): Promise<WebSocketServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false, maxPayload: 4_096 });
  await once(wss, 'listening');
  return wss;
}

/** The reference: serialize once per message, `ws.send` the string to every subscriber. */
async function bareServer(): Promise<WebSocketServer> {
  const wss = await listen();
  const subscribers = new Map<string, Set<WebSocket>>();
  const seqs = new Map<string, number>();
  const latest = new Map<string, string>();
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      const topic = (JSON.parse(data.toString()) as { subscribe: string }).subscribe;
      const set = subscribers.get(topic) ?? new Set();
      subscribers.set(topic, set.add(ws));
      ws.send(
        latest.get(topic) ??
          JSON.stringify({ type: 'snapshot', topic, seq: 0, ts: Date.now(), data: payload(topic, 0) }),
      );
      ws.once('close', () => set.delete(ws));
    });
  });
  startEmitter((topic) => {
    const seq = (seqs.get(topic) ?? 0) + 1;
    seqs.set(topic, seq);
    const message = JSON.stringify({ type: 'update', topic, seq, ts: Date.now(), data: payload(topic, seq) });
    latest.set(topic, message);
    for (const ws of subscribers.get(topic) ?? []) if (ws.readyState === WebSocket.OPEN) ws.send(message);
  });
  return wss;
}

/** The hub with a source standing in for an upstream stream client, default settings, no Redis. */
async function hubServer(): Promise<WebSocketServer> {
  const wss = await listen();
  const sinks = new Map<string, TopicSink>();
  const source = {
    open: (topic: string, sink: TopicSink) => {
      sinks.set(topic, sink);
      sink.snapshot(payload(topic, 0));
    },
    close: (topic: string) => sinks.delete(topic),
  };
  const hub = new FanoutHub({
    sources: new TopicSourceRegistry().register('bench.marketData.', source, MARKET_DATA_POLICY),
  });
  wss.on('connection', (ws) => {
    const client = hub.connect(ws);
    ws.on('message', (data) => {
      const topic = (JSON.parse(data.toString()) as { subscribe: string }).subscribe;
      hub.subscribe(client, topic).catch((error: unknown) => console.error(error));
    });
  });
  let n = 0;
  startEmitter((topic) => sinks.get(topic)?.update(payload(topic, ++n)));
  return wss;
}

/** CPU share and event-loop delay of this process between `start` and `stop` from the parent. */
function onMeasure(start: () => void, stop: (usage: Usage) => object): void {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  let [cpu, started] = [process.cpuUsage(), performance.now()];
  process.on('message', (message: { cmd: string }) => {
    if (message.cmd === 'start') {
      [cpu, started] = [process.cpuUsage(), performance.now()];
      loop.enable();
      return start();
    }
    loop.disable();
    const used = process.cpuUsage(cpu);
    const cpuPercent = ((used.user + used.system) / 1_000 / (performance.now() - started)) * 100;
    process.send?.(stop({ cpuPercent, loopDelayMaxMs: loop.max / 1e6 }));
  });
}

/** Child: one server; also reports its memory after a full collection, against a baseline without clients. */
async function serverProcess(impl: Impl): Promise<void> {
  const wss = impl === 'hub' ? await hubServer() : await bareServer();
  collectGarbage();
  const baseline = process.memoryUsage();
  onMeasure(
    () => undefined,
    (usage): ServerReport => {
      collectGarbage();
      const memory = process.memoryUsage();
      const mb = (bytes: number) => bytes / 2 ** 20;
      return {
        ...usage,
        rssMb: mb(memory.rss),
        rssBaselineMb: mb(baseline.rss),
        heapMb: mb(memory.heapUsed),
        heapBaselineMb: mb(baseline.heapUsed),
      };
    },
  );
  process.send?.({ port: (wss.address() as AddressInfo).port });
}

/** Child: N clients, topic i % 10 each; counts frames and bins their lag while measuring. */
async function clientProcess(url: string, count: number): Promise<void> {
  const bins = new Uint32Array(LAG_BINS);
  let measuring = false;
  let received = 0;
  let max = 0;
  let ready = 0;
  const sockets: WebSocket[] = [];
  const onMessage = (data: Buffer) => {
    if (!measuring) return;
    const at = data.lastIndexOf('"t":');
    const lag = now() - Number.parseFloat(data.toString('latin1', at + 4));
    received += 1;
    max = Math.max(max, lag);
    bins[Math.min(LAG_BINS - 1, Math.max(0, Math.floor(lag / LAG_BIN_MS)))] += 1;
  };
  for (let i = 0; i < count; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, count - i) }, async (_, k) => {
        const ws = new WebSocket(url, { perMessageDeflate: false });
        sockets.push(ws);
        await once(ws, 'open');
        ws.once('message', () => (ready += 1));
        ws.on('message', onMessage);
        ws.send(JSON.stringify({ subscribe: topicOf(i + k) }));
      }),
    );
  }
  while (ready < count) await new Promise((resolve) => setTimeout(resolve, 50));
  onMeasure(
    () => {
      [measuring, received, max] = [true, 0, 0];
      bins.fill(0);
    },
    (usage): ClientReport => {
      measuring = false;
      return { ...usage, received, p50: percentile(bins, received, 0.5), p99: percentile(bins, received, 0.99), max };
    },
  );
  process.send?.({ ready: true });
}

/** Memory is compared after a full collection (children run with --expose-gc), not with garbage. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function percentile(bins: Uint32Array, total: number, q: number): number {
  let seen = 0;
  for (let i = 0; i < bins.length; i += 1) {
    seen += bins[i];
    if (seen >= total * q) return (i + 1) * LAG_BIN_MS;
  }
  return Number.POSITIVE_INFINITY;
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message as T));
    child.once('exit', (code) => reject(new Error(`bench child exited with ${code}`)));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

type Case = { impl: Impl; clients: number } & Record<string, number | string>;

async function runCase(impl: Impl, clients: number): Promise<Case> {
  const self = fileURLToPath(import.meta.url);
  const server = fork(self, ['server', impl], { execArgv: ['--expose-gc'] });
  const children = [server];
  try {
    const { port } = await nextMessage<{ port: number }>(server);
    const connectStarted = performance.now();
    const load = fork(self, ['clients', `ws://127.0.0.1:${port}`, String(clients)]);
    children.push(load);
    await nextMessage(load);
    const connectSeconds = (performance.now() - connectStarted) / 1_000;
    await sleep(WARMUP_MS);
    const reports = Promise.all([nextMessage<ServerReport>(server), nextMessage<ClientReport>(load)]);
    server.send({ cmd: 'start' });
    load.send({ cmd: 'start' });
    await sleep(MEASURE_MS);
    server.send({ cmd: 'stop' });
    load.send({ cmd: 'stop' });
    const [s, c] = await reports;
    const perK = clients / 1_000;
    return {
      impl,
      clients,
      connectSeconds: round(connectSeconds),
      lagP50Ms: round(c.p50),
      lagP99Ms: round(c.p99),
      lagMaxMs: round(c.max),
      deliveredPerSecond: Math.round(c.received / (MEASURE_MS / 1_000)),
      offeredPerSecond: clients * PER_TOPIC_PER_SECOND,
      serverCpuPercent: round(s.cpuPercent),
      serverEventLoopStallMaxMs: round(s.loopDelayMaxMs),
      serverCpuPercentPer1k: round(s.cpuPercent / perK),
      serverRssMb: round(s.rssMb),
      serverRssMbPer1k: round((s.rssMb - s.rssBaselineMb) / perK),
      serverHeapMbPer1k: round((s.heapMb - s.heapBaselineMb) / perK),
      clientProcessCpuPercent: round(c.cpuPercent),
      clientEventLoopStallMaxMs: round(c.loopDelayMaxMs),
      // Other work on the machine shows up in every figure above: this says how much there was.
      machineLoadAverage1m: round(loadavg()[0], 2),
    };
  } finally {
    for (const child of children) child.kill();
  }
}

/**
 * Rounds alternate which server goes first, so drift in what else runs on the machine hits both; the
 * summary takes medians. 5k clients get one round: connecting them alone takes several seconds.
 */
export async function run(): Promise<Record<string, unknown>> {
  const cases: Case[] = [];
  for (const clients of CLIENT_COUNTS) {
    const rounds = clients >= 5_000 ? 1 : ROUNDS;
    for (let round = 0; round < rounds; round += 1) {
      for (const impl of round % 2 ? (['hub', 'bare'] as const) : (['bare', 'hub'] as const))
        cases.push(await runCase(impl, clients));
    }
  }
  const summary = CLIENT_COUNTS.map((clients) => {
    const of = (impl: Impl) => medians(cases.filter((c) => c.impl === impl && c.clients === clients));
    const [bare, hub] = [of('bare'), of('hub')];
    return {
      clients,
      bare,
      hub,
      hubVsBare: {
        delivered: round(hub.deliveredPerSecond / bare.deliveredPerSecond, 2),
        p99: round(hub.lagP99Ms / bare.lagP99Ms, 2),
      },
    };
  });
  return {
    name: 'fanout',
    setup: `${TOPICS} topics x ${PER_TOPIC_PER_SECOND} updates/s, one topic per client, clients and server on this machine, ${MEASURE_MS / 1_000} s measured after ${WARMUP_MS / 1_000} s warm-up, medians of ${ROUNDS} rounds (1 at 5k)`,
    targets: { p99MsAt2k: 25, deliveredVsBare: 1.0, p99VsBare: '<= 1.0', rssMbPer1k: 25 },
    summary,
    cases,
  };
}

function medians(cases: Case[]): Record<string, number> {
  const keys = Object.keys(cases[0] ?? {}).filter((key) => typeof cases[0][key as keyof Case] === 'number');
  return Object.fromEntries(
    keys.map((key) => {
      const values = cases.map((c) => Number(c[key as keyof Case])).sort((a, b) => a - b);
      return [key, values[Math.floor(values.length / 2)]];
    }),
  );
}

const [role, ...args] = process.argv.slice(2);
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (role === 'server') void serverProcess(args[0] as Impl);
  else if (role === 'clients') void clientProcess(args[0], Number(args[1]));
  else void run().then((result) => console.log(JSON.stringify(result, null, 2)));
}
