import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { CoreConfigSchema } from '../config/config.schema.js';
import { UpstreamHttp, urlOf } from './upstream-http.service.js';

const config = CoreConfigSchema.parse({
  environment: 'development',
});

describe(UpstreamHttp.name, () => {
  let server: Server;
  let origin: string;
  const seen: { url?: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const sut = new UpstreamHttp(config);

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ url: req.url, headers: req.headers, body });
        res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await sut.onApplicationShutdown();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends path, query, body and request id of the address urlOf builds, under a base with a path prefix', async () => {
    const url = urlOf(`${origin}/api/`, {
      path: '/v1/orders',
      query: { slugs: ['a b', 'c'], limit: 5, skipped: undefined },
    });
    expect(url).toBe(`${origin}/api/v1/orders?slugs=a+b&slugs=c&limit=5`);
    const reply = await sut.json(url, {
      method: 'POST',
      body: { qty: 1 },
      headers: { authorization: 'Bearer t' },
      requestId: 'req-1',
    });
    expect(reply).toMatchObject({ status: 201, text: '{"ok":true}' });
    expect(seen.at(-1)).toMatchObject({ url: '/api/v1/orders?slugs=a+b&slugs=c&limit=5', body: '{"qty":1}' });
    expect(seen.at(-1)?.headers).toMatchObject({
      authorization: 'Bearer t',
      'x-request-id': 'req-1',
      'content-type': 'application/json',
      accept: 'application/json',
    });
  });

  it('sends a query that follows the origin directly, as a target under /', async () => {
    await sut.json(`${origin}?probe=1`, { method: 'GET' });
    expect(seen.at(-1)?.url).toBe('/?probe=1');
  });

  it('finds one pool per origin however the origin is spelled', () => {
    const pool = sut.pool(origin);
    expect(sut.pool(origin.replace('http://', 'HTTP://'))).toBe(pool);
  });
});
