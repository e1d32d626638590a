// The typed client (packages/client) against the real stack: REST calls typed from the OpenAPI
// document, problem+json as GatewayProblem, Prefer: wait, and a /ws stream that resumes after a drop.
import { readFileSync } from 'node:fs';

import { GatewayProblem, GatewayStream, createGatewayClient, preferWait, wsTicket } from '@pm-gateway/client';
import { WebSocket } from 'ws';

import { OPENAPI_FILE, SCHEMA_FILE, openApiText, schemaTypesOf } from '../tools/client-types.js';
import { type Stack, eventually, startStack } from './support/stack.js';

const SLUG = 'aec-nfl-buf-kc-2026-11-22';
const openWs = (url: string, headers: Record<string, string>) => new WebSocket(url, { headers });

describe('@pm-gateway/client', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ clients: [{ id: 'reader', scopes: ['read:marketdata'] }] });
  });
  afterAll(() => stack.close());

  it('has REST types generated from exactly the OpenAPI document the gateway serves', async () => {
    const served: unknown = await (await fetch(`${stack.url}/docs/json`)).json();
    // Run `npm run client:generate` (with npm start running) when this fails.
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(openApiText(served));
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(await schemaTypesOf(served));
  });

  it('reads the catalog and the caller through typed calls', async () => {
    const client = createGatewayClient({ baseUrl: stack.url, key: stack.keys.all });
    const me = await client.GET('/me');
    expect(me.data).toMatchObject({ id: 'all' });
    const events = await client.GET('/catalog/v1/events', { params: { query: { limit: '2' } } });
    expect((events.data as unknown as { events: unknown[] }).events).toHaveLength(2);
    expect(events.response.headers.get('x-cache')).toBe('MISS');
  });

  it('throws problem+json answers as GatewayProblem with code and request id', async () => {
    const reader = createGatewayClient({ baseUrl: stack.url, key: stack.keys.reader });
    const refused = await reader.GET('/admin/limits').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(GatewayProblem);
    expect(refused).toMatchObject({ status: 403, code: 'FORBIDDEN', problem: { missingScope: 'admin' } });
    expect((refused as GatewayProblem).requestId).toMatch(/.+/);
    const badKey = createGatewayClient({ baseUrl: stack.url, key: 'pmgw_not-a-key' });
    await expect(badKey.GET('/me')).rejects.toMatchObject({ status: 401 });
  });

  it('sends Prefer: wait for a client default and per call', async () => {
    const seen: (string | null)[] = [];
    const recording: typeof fetch = (input, init) => {
      seen.push(new Request(input, init).headers.get('prefer'));
      return fetch(input, init);
    };
    const client = createGatewayClient({ baseUrl: stack.url, key: stack.keys.all, waitSeconds: 3, fetch: recording });
    await client.GET('/me');
    await client.GET('/me', { headers: preferWait(7) });
    expect(seen).toEqual(['wait=3', 'wait=7']);
  });

  it('streams over /ws with a ticket, and resumes from the last seq after the socket drops', async () => {
    const rest = createGatewayClient({ baseUrl: stack.url, key: stack.keys.all });
    const stream = new GatewayStream({
      url: stack.url,
      open: openWs,
      ticket: () => wsTicket(rest),
      backoff: { initialMs: 10, maxMs: 50 },
    });
    const frames: { type: string; seq: number }[] = [];
    let reconnects = 0;
    stream
      .on('frame', (frame) => frames.push({ type: frame.type, seq: frame.seq }))
      .on('reconnecting', () => reconnects++);
    const errors: string[] = [];
    stream.on('error', (error) => errors.push(error.code));
    await stream.connect();
    stream.subscribe([`retail.marketData.${SLUG}`, 'nope.topic']);
    await eventually(
      async () => frames.length,
      (n) => n >= 1,
      10_000,
    );
    await eventually(
      async () => errors,
      (seen) => seen.includes('unknown_topic'),
      5_000,
    );
    expect(frames[0]).toMatchObject({ type: 'snapshot', seq: 1 });
    // Drop the socket from the client side as a network would; the stream reconnects with a new ticket.
    (stream as unknown as { socket: { terminate(): void } }).socket.terminate();
    await eventually(
      async () => reconnects,
      (n) => n >= 1,
      5_000,
    );
    // A new book state after the reconnect arrives with the next seq: nothing replayed twice, nothing skipped.
    await rest.POST('/retail/v1/orders', {
      body: {
        marketSlug: SLUG,
        intent: 'ORDER_INTENT_BUY_LONG',
        price: { value: '0.03', currency: 'USD' },
        quantity: 1,
      } as never,
    });
    await eventually(
      async () => frames.length,
      (n) => n >= 2,
      10_000,
    );
    expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1));
    expect(stream.lastSeq(`retail.marketData.${SLUG}`)).toBe(frames.length);
    stream.close();
  });
});
