import { WebSocket } from 'ws';

import type { Json } from './stack.js';

/** A `/ws` client for tests: records every server frame in order and waits for the ones it needs. */
export class WsTestClient {
  readonly frames: Json[] = [];
  closeCode: number | undefined;
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      this.frames.push(JSON.parse(data.toString('utf8')));
      this.wake();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      this.wake();
    });
  }

  /** Opens `/ws`; rejects with the HTTP status of a refused upgrade. */
  static open(
    baseUrl: string,
    options: { key?: string; ticket?: string; headers?: Record<string, string> } = {},
  ): Promise<WsTestClient> {
    const url = `${baseUrl.replace(/^http/, 'ws')}/ws${options.ticket === undefined ? '' : `?ticket=${encodeURIComponent(options.ticket)}`}`;
    const ws = new WebSocket(url, {
      headers: { ...options.headers, ...(options.key ? { authorization: `Bearer ${options.key}` } : {}) },
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new WsTestClient(ws)));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.once('close', () => reject(new RefusedUpgrade(res.statusCode ?? 0, res.headers, body)));
        res.resume();
      });
      ws.once('error', reject);
    });
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Sends one subscribe and resolves with the ack or the error frame that answers it. */
  subscribe(topics: string[], timeoutMs = 15_000): Promise<Json> {
    const id = Math.random().toString(36).slice(2);
    this.send({ type: 'subscribe', id, topics });
    return this.next((frame) => frame.id === id && ['ack', 'error'].includes(frame.type), timeoutMs);
  }

  /** Frames of one topic, in arrival order. */
  topic(topic: string): Json[] {
    return this.frames.filter(
      (frame) => frame.topic === topic && ['snapshot', 'update', 'resync'].includes(frame.type),
    );
  }

  /** Resolves with the first frame (after `from`) matching `test`; fails after `timeoutMs`. */
  async next(test: (frame: Json) => boolean, timeoutMs = 5_000, from = 0): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.slice(from).find(test);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames.slice(-5))}`);
      await this.wait(deadline - Date.now());
    }
  }

  /** Resolves once the server closed the socket, with its close code. */
  async closed(timeoutMs = 5_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.closeCode === undefined) {
      if (Date.now() > deadline) throw new Error('the socket is still open');
      await this.wait(deadline - Date.now());
    }
    return this.closeCode;
  }

  close(): void {
    this.ws.terminate();
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(1, ms));
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((wake) => wake());
  }
}

/** The clients a test file opened on its stacks, closed together at the end. */
export class WsClients {
  private readonly open: WsTestClient[] = [];

  async connect(stack: { url: string; keys: Record<string, string> }, clientId: string): Promise<WsTestClient> {
    const client = await WsTestClient.open(stack.url, { key: stack.keys[clientId] });
    this.open.push(client);
    return client;
  }

  closeAll(): void {
    this.open.splice(0).forEach((client) => client.close());
  }
}

export class RefusedUpgrade extends Error {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string | string[] | undefined> = {},
    readonly body = '',
  ) {
    super(`upgrade refused with HTTP ${status}`);
  }
}

/** Asserts a topic's frames have consecutive seq with no duplicate: what every subscriber must see. */
export function seqGaps(frames: Json[]): string[] {
  const problems: string[] = [];
  for (let i = 1; i < frames.length; i++) {
    if (frames[i].seq !== frames[i - 1].seq + 1) problems.push(`${frames[i - 1].seq} → ${frames[i].seq}`);
  }
  return problems;
}
