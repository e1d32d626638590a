/**
 * An event handler property, checked bivariantly (method syntax), so that both the browser's
 * WebSocket and the `ws` package's, whose handlers take their own event classes, fit WebSocketLike.
 */
type Handler<E> = { bivariant(event: E): void }['bivariant'] | null;

/** The subset of the WebSocket API the stream uses: the browser's WebSocket and the `ws` package both have it. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number): void;
  onopen: Handler<unknown>;
  onmessage: Handler<{ data: unknown }>;
  onclose: Handler<{ code: number }>;
  onerror: Handler<unknown>;
}

/** How to open a socket: browsers `(url) => new WebSocket(url)`; Node with `ws`: `(url, headers) => new WebSocket(url, { headers })`. */
export type OpenSocket = (url: string, headers: Record<string, string>) => WebSocketLike;

export interface StreamOptions {
  /** The gateway's base URL (http or https; the socket goes to /ws). */
  url: string;
  open: OpenSocket;
  /** Server-side apps: the API key, sent as a bearer header on the upgrade. */
  key?: string;
  /** Browsers: a fresh one-time ticket for each connect (see wsTicket). */
  ticket?: () => Promise<string>;
  /** Reconnect backoff: full jitter between 0 and min(maxMs, initialMs * 2^attempt). */
  backoff?: { initialMs?: number; maxMs?: number };
}

export interface StreamFrame {
  type: 'snapshot' | 'update' | 'resync';
  topic: string;
  /** The holding that numbered the frame: `seq` compares only within one epoch; a new one arrives as `resync`. */
  epoch: string;
  seq: number;
  ts: number;
  data: unknown;
}

export interface StreamError {
  code: string;
  message: string;
  topic?: string;
  id?: string;
  missingScope?: string;
}

interface StreamEvents {
  /** Every snapshot, update and resync frame, in order, without duplicates. */
  frame: (frame: StreamFrame) => void;
  /** The state of a topic was replaced: drop what you hold for it and take `frame.data`. */
  resync: (frame: StreamFrame) => void;
  /** An `error` frame of the gateway (bad_request, forbidden, too_many_streams, …). */
  error: (error: StreamError) => void;
  open: () => void;
  /** The socket closed; a reconnect follows after `delayMs` unless the stream was closed. */
  reconnecting: (info: { code: number; delayMs: number; attempt: number }) => void;
}

type Listeners = { [K in keyof StreamEvents]: Set<StreamEvents[K]> };

const OPEN = 1;

/**
 * A /ws client that keeps its subscriptions across reconnects: it remembers the last epoch and `seq`
 * of every topic and resubscribes with `resumeFrom`, so the gateway replays exactly what was missed (or
 * sends a `resync` when it cannot); updates at or below a topic's last `seq` of the same epoch are
 * dropped as duplicates.
 */
export class GatewayStream {
  private socket: WebSocketLike | undefined;
  private readonly topics = new Set<string>();
  private readonly seqs = new Map<string, { epoch: string; seq: number }>();
  private readonly listeners: Listeners = {
    frame: new Set(),
    resync: new Set(),
    error: new Set(),
    open: new Set(),
    reconnecting: new Set(),
  };
  private attempt = 0;
  private closed = false;
  private nextId = 1;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: StreamOptions) {}

  on<K extends keyof StreamEvents>(event: K, listener: StreamEvents[K]): this {
    this.listeners[event].add(listener);
    return this;
  }

  /** Opens the socket (resolves once it is open); later drops reconnect by themselves. */
  async connect(): Promise<void> {
    this.closed = false;
    const socket = await this.openSocket();
    await new Promise<void>((resolve, reject) => {
      socket.onopen = () => resolve();
      socket.onerror = (event) => reject(event instanceof Error ? event : new Error('the /ws upgrade failed'));
    });
  }

  subscribe(topics: string[]): void {
    for (const topic of topics) this.topics.add(topic);
    this.sendSubscribe(topics);
  }

  unsubscribe(topics: string[]): void {
    for (const topic of topics) {
      this.topics.delete(topic);
      this.seqs.delete(topic);
    }
    this.send({ type: 'unsubscribe', id: String(this.nextId++), topics });
  }

  /** The last `seq` received on a topic. */
  lastSeq(topic: string): number | undefined {
    return this.seqs.get(topic)?.seq;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.socket?.close(1000);
  }

  private async openSocket(): Promise<WebSocketLike> {
    const base = `${this.options.url.replace(/^http/, 'ws').replace(/\/$/, '')}/ws`;
    const ticket = this.options.ticket ? await this.options.ticket() : undefined;
    const url = ticket === undefined ? base : `${base}?ticket=${encodeURIComponent(ticket)}`;
    const headers: Record<string, string> = this.options.key ? { authorization: `Bearer ${this.options.key}` } : {};
    const socket = this.options.open(url, headers);
    this.socket = socket;
    socket.onmessage = (event) => this.receive(String(event.data));
    socket.onclose = (event) => this.dropped(socket, event.code);
    const opened = socket.onopen;
    socket.onopen = (event) => {
      this.attempt = 0;
      if (this.topics.size > 0) this.sendSubscribe([...this.topics]);
      for (const listener of this.listeners.open) listener();
      opened?.(event);
    };
    return socket;
  }

  private sendSubscribe(topics: string[]): void {
    const resumeFrom = Object.fromEntries(
      topics.flatMap((topic) => (this.seqs.has(topic) ? [[topic, this.seqs.get(topic)!]] : [])),
    );
    this.send({
      type: 'subscribe',
      id: String(this.nextId++),
      topics,
      ...(Object.keys(resumeFrom).length > 0 ? { resumeFrom } : {}),
    });
  }

  private send(message: object): void {
    if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify(message));
  }

  private receive(text: string): void {
    let frame: Record<string, unknown>;
    try {
      frame = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    if (frame.type === 'error') {
      for (const listener of this.listeners.error) listener(frame as unknown as StreamError);
      return;
    }
    if (frame.type !== 'snapshot' && frame.type !== 'update' && frame.type !== 'resync') return;
    const data = frame as unknown as StreamFrame;
    const last = this.seqs.get(data.topic);
    if (data.type === 'update' && last?.epoch === data.epoch && data.seq <= last.seq) return; // already seen (a replay overlap)
    this.seqs.set(data.topic, { epoch: data.epoch, seq: data.seq });
    if (data.type === 'resync') for (const listener of this.listeners.resync) listener(data);
    for (const listener of this.listeners.frame) listener(data);
  }

  private dropped(socket: WebSocketLike, code: number): void {
    if (this.closed || socket !== this.socket) return;
    const initialMs = this.options.backoff?.initialMs ?? 250;
    const maxMs = this.options.backoff?.maxMs ?? 30_000;
    const delayMs = Math.random() * Math.min(maxMs, initialMs * 2 ** this.attempt);
    this.attempt++;
    for (const listener of this.listeners.reconnecting) listener({ code, delayMs, attempt: this.attempt });
    this.timer = setTimeout(() => {
      this.openSocket().catch(() => this.dropped(socket, code));
    }, delayMs);
  }
}
