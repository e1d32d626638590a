import { type Server, type Socket, connect, createServer } from 'node:net';

/**
 * A TCP proxy in front of a real server (Redis), to make the network fail the way it does in production:
 * `stall()` holds every byte in both directions (a slow or frozen Redis: commands time out, the TCP
 * connection stays up), `cut()` closes every connection and refuses new ones (Redis gone for this
 * client only), `restore()` lets traffic through again.
 */
export class StallProxy {
  private readonly pairs = new Set<[Socket, Socket]>();
  private stalled = false;
  private holdingReplies = false;
  private refusing = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly replyDelayMs: number,
  ) {}

  /** `replyDelayMs`: every reply reaches the client this much later, in order (commands reach the server at once). */
  static async start(targetPort: number, options: { replyDelayMs?: number } = {}): Promise<StallProxy> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const proxy = new StallProxy(server, (server.address() as { port: number }).port, options.replyDelayMs ?? 0);
    server.on('connection', (client) => proxy.accept(client, targetPort));
    return proxy;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  stall(): void {
    this.stalled = true;
    for (const [client, upstream] of this.pairs) {
      client.pause();
      upstream.pause();
    }
  }

  /**
   * Holds every reply while requests still reach the server (a reply lost on the way back): the server
   * runs and commits what it receives, the client times out without knowing. `restore()` releases them.
   */
  holdReplies(): void {
    this.holdingReplies = true;
    for (const [, upstream] of this.pairs) upstream.pause();
  }

  cut(): void {
    this.refusing = true;
    for (const [client, upstream] of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  restore(): void {
    this.stalled = false;
    this.holdingReplies = false;
    this.refusing = false;
    for (const [client, upstream] of this.pairs) {
      client.resume();
      upstream.resume();
    }
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, targetPort: number): void {
    if (this.refusing) return void client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    client.pipe(upstream);
    // Timers of one duration fire in the order they were set: the replies keep theirs.
    if (this.replyDelayMs > 0)
      upstream.on('data', (chunk: Buffer) => setTimeout(() => client.write(chunk), this.replyDelayMs));
    else upstream.pipe(client);
    if (this.stalled) {
      client.pause();
      upstream.pause();
    } else if (this.holdingReplies) upstream.pause();
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  }
}
