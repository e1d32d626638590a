import { type Socket, connect } from 'node:net';

import { type Stack, startStack } from './support/stack.js';

// curl --http2 on an http:// URL sends every request with `Connection: Upgrade, HTTP2-Settings`,
// `Upgrade: h2c` and `HTTP2-Settings`. Node hands any request with an Upgrade to the server's 'upgrade'
// event (the /ws endpoint's), and every one at another path was a 404 "No WebSocket endpoint": a plain
// HTTP client could not read the catalog. Now the upgrade is ignored (RFC 9110 section 7.8) and the
// request served over HTTP/1.1 as it would be without it, through the same authentication and routes.

const H2C = 'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw HTTP/1.1 client on one socket: answers read in order, each by its Content-Length or chunks. */
class RawConnection {
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private ended = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiting?.();
    });
    socket.on('end', () => {
      this.ended = true;
      this.waiting?.();
    });
  }

  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.ended;
  }

  async request(head: string, body = ''): Promise<Answer> {
    this.socket.write(head + '\r\n' + body);
    return this.answer();
  }

  close(): void {
    this.socket.destroy();
  }

  private async answer(): Promise<Answer> {
    const end = await this.until(() => this.buffered.indexOf('\r\n\r\n'));
    const [statusLine, ...lines] = this.buffered.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    this.buffered = this.buffered.subarray(end + 4);
    let body: Buffer;
    if (headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = await this.until(() => this.buffered.indexOf('\r\n'));
        const size = parseInt(this.buffered.subarray(0, lineEnd).toString('latin1'), 16);
        await this.until(() => (this.buffered.length >= lineEnd + 2 + size + 2 ? 0 : -1));
        parts.push(this.buffered.subarray(lineEnd + 2, lineEnd + 2 + size));
        this.buffered = this.buffered.subarray(lineEnd + 2 + size + 2);
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(headers['content-length'] ?? 0);
      await this.until(() => (this.buffered.length >= length ? 0 : -1));
      body = this.buffered.subarray(0, length);
      this.buffered = this.buffered.subarray(length);
    }
    return { status: Number(statusLine!.split(' ')[1]), headers, body: body.toString() };
  }

  /** Waits until `found` gives a position (not -1); fails if the server closes first or after 10 s. */
  private async until(found: () => number): Promise<number> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const at = found();
      if (at !== -1) return at;
      if (this.ended) throw new Error(`the server closed the connection; unread: ${this.buffered.toString()}`);
      if (Date.now() > deadline) throw new Error(`no complete answer within 10 s; got: ${this.buffered.toString()}`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 100);
      });
      this.waiting = undefined;
    }
  }
}

describe('a request asking to upgrade to h2c (curl --http2 over http://) is served over HTTP/1.1', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ clients: [{ id: 'reader', team: 'platform', scopes: ['read:instruments' as const] }] });
  });
  afterAll(() => stack?.close());

  const host = () => `Host: ${new URL(stack.url).host}\r\n`;

  it('a catalog read and a second request on the same kept-alive connection', async () => {
    const connection = await RawConnection.open(stack.url);
    try {
      const auth = `Authorization: Bearer ${stack.keys.reader}\r\n`;
      const first = await connection.request(`GET /catalog/v1/events/1001 HTTP/1.1\r\n${host()}${auth}${H2C}`);
      expect(first.status).toBe(200);
      expect(JSON.parse(first.body)).toMatchObject({ event: { id: '1001' } });
      expect(first.headers.upgrade).toBeUndefined();
      const second = await connection.request(`GET /catalog/v1/events?limit=1 HTTP/1.1\r\n${host()}${auth}`);
      expect(second.status).toBe(200);
      expect(JSON.parse(second.body).events).toHaveLength(1);
      expect(connection.closed).toBe(false);
    } finally {
      connection.close();
    }
  });

  it('many on one connection: each answered, and nothing piles up on its socket', async () => {
    const server = stack.gateway.getHttpServer() as import('node:http').Server;
    const sockets = new Set<import('node:net').Socket>();
    const seen = (socket: import('node:net').Socket) => sockets.add(socket);
    server.on('connection', seen);
    const connection = await RawConnection.open(stack.url);
    try {
      const auth = `Authorization: Bearer ${stack.keys.reader}\r\n`;
      for (let i = 0; i < 30; i++) {
        const answer = await connection.request(`GET /catalog/v1/events/1001 HTTP/1.1\r\n${host()}${auth}${H2C}`);
        expect({ i, status: answer.status }).toEqual({ i, status: 200 });
      }
      // One socket, handed back 30 times: a listener added per upgrade would be 30 here (Node's own are a few).
      expect(sockets.size).toBe(1);
      const [socket] = [...sockets];
      expect(socket!.listenerCount('error')).toBeLessThan(5);
    } finally {
      server.off('connection', seen);
      connection.close();
    }
  });

  it('a body is read whole, and the key is checked as on any request', async () => {
    const connection = await RawConnection.open(stack.url);
    try {
      const body = JSON.stringify({ topics: ['exchange.marketData.aec-nfl-buf-kc-2026-11-22'] });
      const head =
        `POST /ws/tickets HTTP/1.1\r\n${host()}Authorization: Bearer ${stack.keys.all}\r\n${H2C}` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
      const minted = await connection.request(head, body);
      expect(minted.status).toBe(201);
      expect(JSON.parse(minted.body)).toMatchObject({ topics: ['exchange.marketData.aec-nfl-buf-kc-2026-11-22'] });

      const refused = await connection.request(`GET /catalog/v1/events/1001 HTTP/1.1\r\n${host()}${H2C}`);
      expect(refused.status).toBe(401);
      expect(refused.headers['content-type']).toContain('application/problem+json');
    } finally {
      connection.close();
    }
  });

  it('a WebSocket upgrade at a path with no WebSocket endpoint is still a 404', async () => {
    const connection = await RawConnection.open(stack.url);
    try {
      const answer = await connection.request(
        `GET /catalog/v1/events/1001 HTTP/1.1\r\n${host()}Connection: Upgrade\r\nUpgrade: websocket\r\n` +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n',
      );
      expect(answer.status).toBe(404);
      expect(answer.body).toContain('No WebSocket endpoint');
    } finally {
      connection.close();
    }
  });
});
