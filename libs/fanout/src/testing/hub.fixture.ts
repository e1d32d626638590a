import type { AddressInfo } from 'node:net';

import { Registry } from 'prom-client';
import { WebSocket, WebSocketServer } from 'ws';

import type { StreamHolder } from '../capacity/stream-capacity.types.js';
import type { HubClient } from '../client/hub.client.js';
import type { FanoutHubOptions } from '../fanout.options.js';
import { FanoutHub, type ResumePoint } from '../hub/fanout.hub.js';
import type { FrameMessage } from '../hub/frame.codec.js';
import { TopicSourceRegistry } from '../source/topic-source.registry.js';
import type { SnapshotFold, TopicPolicy, TopicSink, TopicSource } from '../source/topic-source.types.js';

/** Test double of a stream client: records opens and closes, and lets the test speak for the upstream. */
export class FakeSource implements TopicSource {
  readonly opened: string[] = [];
  readonly closed: string[] = [];
  private readonly sinks = new Map<string, TopicSink>();
  /** When set, `open` waits for it: concurrent subscribers pile up on one pending open. */
  gate: Promise<void> | undefined;
  /** When set, `open` fails with it, as an upstream refusing the subscription. */
  failure: Error | undefined;
  /** When set, called on every open (after the current tick), as an upstream sending its first snapshot. */
  onOpen: ((topic: string, sink: TopicSink) => void) | undefined;

  async open(topic: string, sink: TopicSink): Promise<void> {
    this.opened.push(topic);
    if (this.failure) throw this.failure;
    this.sinks.set(topic, sink);
    const onOpen = this.onOpen;
    if (onOpen) setImmediate(() => this.sinks.get(topic) === sink && onOpen(topic, sink));
    await this.gate;
  }

  close(topic: string): void {
    this.closed.push(topic);
    this.sinks.delete(topic);
  }

  isOpen(topic: string): boolean {
    return this.sinks.has(topic);
  }

  sink(topic: string): TopicSink {
    const sink = this.sinks.get(topic);
    if (!sink) throw new Error(`${topic} is not open upstream`);
    return sink;
  }
}

/**
 * A real `ws` server on 127.0.0.1:0 speaking a minimal client protocol, as the gateway's `/ws` endpoint
 * will: `{"subscribe": topic, "resumeFrom"?: {epoch, seq}}` answered by `{"subscribed": topic}` once the
 * initial frames are out, and `{"unsubscribe": topic}`.
 */
export class HubServer {
  readonly hubClients: HubClient[] = [];
  private constructor(
    private readonly wss: WebSocketServer,
    readonly url: string,
  ) {}

  static async start(hub: FanoutHub): Promise<HubServer> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    const server = new HubServer(wss, `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
    wss.on('connection', (ws, req) => {
      // `?client=&team=` names the holder the stream caps count the subscriptions against.
      const query = new URL(req.url ?? '/', 'ws://hub').searchParams;
      const [id, team] = [query.get('client'), query.get('team')];
      const client = hub.connect(ws, {}, id && team ? { client: id, team } : undefined);
      server.hubClients.push(client);
      ws.on('message', (data) => {
        const request = JSON.parse(data.toString()) as {
          subscribe?: string;
          unsubscribe?: string;
          resumeFrom?: ResumePoint;
        };
        if (request.unsubscribe) return hub.unsubscribe(client, request.unsubscribe);
        const topic = request.subscribe ?? '';
        hub.subscribe(client, topic, { resumeFrom: request.resumeFrom }).then(
          () => client.sendJson({ subscribed: topic }),
          (error: Error) => client.sendJson({ error: error.message, topic }),
        );
      });
    });
    return server;
  }

  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}

type Message = FrameMessage & { subscribed?: string; error?: string };

/** A real `ws` client that records every frame it reads. */
export class TestClient {
  readonly frames: FrameMessage[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly waiters = new Set<() => void>();
  private readonly controls: Message[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as Message;
      if (message.subscribed || message.error) this.controls.push(message);
      else this.frames.push(message);
      for (const waiter of this.waiters) waiter();
    });
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  static async connect(url: string): Promise<TestClient> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new TestClient(ws);
  }

  async subscribe(topic: string, resumeFrom?: ResumePoint): Promise<void> {
    const from = this.controls.length;
    this.ws.send(JSON.stringify({ subscribe: topic, resumeFrom }));
    const answers = () => this.controls.slice(from);
    await this.until(() => answers().some((c) => c.subscribed === topic || c.topic === topic), `subscribed ${topic}`);
    const failure = answers().find((c) => c.error && c.topic === topic);
    if (failure) throw new Error(failure.error);
  }

  unsubscribe(topic: string): void {
    this.ws.send(JSON.stringify({ unsubscribe: topic }));
  }

  of(topic: string): FrameMessage[] {
    return this.frames.filter((frame) => frame.topic === topic);
  }

  /** Resolves once `condition` holds after some message; bounded so a broken hub fails the test instead of hanging it. */
  until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `timed out waiting for ${what}; frames: ${JSON.stringify(this.frames.map((f) => [f.topic, f.type, f.seq]))}`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  close(): void {
    this.ws.terminate();
  }
}

/** Polls a condition outside any socket (hub state, Redis); bounded like `TestClient.until`. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A single-instance hub on a real `ws` server, one fake upstream per prefix-policy pair given. */
export class HubFixture {
  readonly source = new FakeSource();
  readonly registry = new Registry();
  readonly hub: FanoutHub;
  private readonly clients: TestClient[] = [];
  private server: HubServer | undefined;

  constructor(policies: Record<string, TopicPolicy>, options: Omit<FanoutHubOptions, 'sources' | 'registry'> = {}) {
    const sources = new TopicSourceRegistry();
    for (const [prefix, policy] of Object.entries(policies)) sources.register(prefix, this.source, policy);
    this.hub = new FanoutHub({ ...options, sources, registry: this.registry });
  }

  get hubClients(): HubClient[] {
    return this.server?.hubClients ?? [];
  }

  /** A connected client; with a holder, its subscriptions count against the stream caps. */
  async client(holder?: StreamHolder): Promise<TestClient> {
    this.server ??= await HubServer.start(this.hub);
    const created = await TestClient.connect(
      holder ? `${this.server.url}/?client=${holder.client}&team=${holder.team}` : this.server.url,
    );
    this.clients.push(created);
    return created;
  }

  /** Sum of a metric's values (all label sets). */
  async metric(name: string): Promise<number> {
    const found = (await this.registry.getMetricsAsJSON()).find((m) => m.name === name);
    return (found?.values ?? []).reduce((sum, v) => sum + v.value, 0);
  }

  async close(): Promise<void> {
    for (const c of this.clients.splice(0)) c.close();
    await this.server?.close();
    await this.hub.close();
  }
}

/** A test family's fold from a merge function that makes the next state from the last (a new state per update). */
export function mergeFold(merge: (snapshot: unknown, update: unknown) => unknown): () => SnapshotFold {
  return () => {
    let state: unknown;
    return {
      reset: (snapshot) => void (state = snapshot),
      apply: (update) => void (state = merge(state, update)),
      data: () => state,
    };
  };
}
