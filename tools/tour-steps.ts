// The guided tour's steps (`npm run tour`): each capability once, against a running gateway, told in a
// few lines. Exported so that a test runs the same steps against the in-process stack.
import { WebSocket } from 'ws';

export interface TourOptions {
  /** The gateway's base URL, e.g. http://127.0.0.1:8080. */
  url: string;
  /** An API key with the scopes the tour uses (npm start's demo key has all). */
  key: string;
  /** Where the tour's lines go. */
  write: (line: string) => void;
  /** How long to watch market data on /ws; default 3 s. */
  watchMs?: number;
}

/** What the tour saw, for its test. */
export interface TourResult {
  catalogCache: string[];
  exchangeOrderState: string;
  framesSeen: number;
}

type Json = Record<string, unknown>;

const BUDGET_HEADERS = ['ratelimit-policy', 'ratelimit', 'retry-after'] as const;

/** Tour steps fail with this; the CLI prints its message and exits non-zero. */
export class TourError extends Error {}

class TourClient {
  constructor(private readonly options: TourOptions) {}

  async call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; headers: Headers; json: Json; ms: number }> {
    const started = performance.now();
    const res = await fetch(`${this.options.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.options.key}`,
        prefer: 'wait=5', // queue for budget instead of a 429 (the tour's calls are few)
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    let json: Json = {};
    try {
      json = text ? (JSON.parse(text) as Json) : {};
    } catch {
      throw new TourError(`${method} ${path} answered ${res.status} with a body that is not JSON`);
    }
    if (res.status >= 400)
      throw new TourError(
        `${method} ${path} answered ${res.status}: ${String(json.detail ?? json.title ?? text.slice(0, 200))}`,
      );
    return { status: res.status, headers: res.headers, json, ms };
  }
}

function budgetOf(headers: Headers): string {
  const shown = BUDGET_HEADERS.filter((name) => headers.has(name)).map((name) => `${name}: ${headers.get(name)}`);
  return shown.length > 0 ? shown.join('; ') : 'no budget headers';
}

async function catalogTwice(client: TourClient, write: (line: string) => void): Promise<string[]> {
  // A limit that changes every few seconds, so a second run of the tour usually starts cold too.
  const path = `/catalog/v1/events?active=true&limit=${1 + (Math.floor(Date.now() / 5000) % 50)}`;
  write(`1. Catalog, cached in the gateway (shared in Redis when configured): GET ${path}`);
  const seen: string[] = [];
  for (const label of ['first read ', 'second read']) {
    const { status, headers, ms } = await client.call('GET', path);
    seen.push(headers.get('x-cache') ?? '');
    write(
      `   ${label}: ${status}  X-Cache: ${headers.get('x-cache')}  Age: ${headers.get('age')}  (${ms.toFixed(1)} ms)`,
    );
  }
  return seen;
}

async function firstSymbol(client: TourClient): Promise<string> {
  const { json } = await client.call('POST', '/exchange/v1/refdata/instruments', { pageSize: 1 });
  const symbol = (json.instruments as { symbol?: string }[] | undefined)?.[0]?.symbol;
  if (!symbol) throw new TourError('the exchange lists no instrument');
  return symbol;
}

async function orderFilledByRetail(client: TourClient, symbol: string, write: (line: string) => void): Promise<string> {
  const participant = ((await client.call('GET', '/me')).json.participants as string[] | undefined)?.[0];
  if (!participant) throw new TourError('the key is allowed no exchange participant');
  const clordId = `tour-${Date.now().toString(36)}`;
  write(`2. An exchange order filled by a crossing retail order, on ${symbol}`);
  const placed = await client.call('POST', '/exchange/v1/trading/orders', {
    symbol,
    side: 'SIDE_SELL',
    type: 'ORDER_TYPE_LIMIT',
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    orderQty: '3',
    price: '60',
    clordId,
    account: participant,
  });
  write(`   exchange: sell 3 @ 60 as ${participant} → ${placed.status}, order ${String(placed.json.orderId)}`);
  write(`             budget: ${budgetOf(placed.headers)}`);
  const bought = await client.call('POST', '/retail/v1/orders', {
    marketSlug: symbol,
    intent: 'ORDER_INTENT_BUY_LONG',
    price: { value: '0.60', currency: 'USD' },
    quantity: 3,
    synchronousExecution: true,
    maxBlockTime: '2',
  });
  const fills = ((bought.json.executions as { type?: string; lastShares?: string }[] | undefined) ?? []).filter((e) =>
    e.type?.includes('FILL'),
  );
  write(
    `   retail:   buy 3 @ $0.60 (signed by the gateway) → ${bought.status}, ${fills.length} fill(s): ${fills.map((e) => `${e.type} ${e.lastShares}`).join(', ') || 'none'}`,
  );
  write(`             budget: ${budgetOf(bought.headers)}`);
  const search = await client.call('POST', '/exchange/v1/report/orders/search', { clordId });
  const order = (search.json.order as { state?: string; cumQty?: string }[] | undefined)?.[0];
  const state = order?.state ?? 'not found';
  write(`   exchange order now: ${state}, filled ${order?.cumQty ?? '?'} of 3`);
  if (state !== 'ORDER_STATE_FILLED') {
    await client
      .call('POST', '/exchange/v1/trading/orders/cancel', { clordId, account: participant })
      .catch(() => undefined);
  }
  return state;
}

async function watchMarketData(options: TourOptions, client: TourClient, symbol: string): Promise<number> {
  const watchMs = options.watchMs ?? 3000;
  const topic = `exchange.marketData.${symbol}`;
  options.write(`3. /ws: ${topic} for ${(watchMs / 1000).toFixed(0)} s (a bid is placed and cancelled meanwhile)`);
  const ws = new WebSocket(`${options.url.replace(/^http/, 'ws')}/ws`, {
    headers: { authorization: `Bearer ${options.key}` },
  });
  const frames: Json[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new TourError(`/ws refused the upgrade: ${res.statusCode}`)));
  });
  ws.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString('utf8')) as Json;
    frames.push(frame);
    if (frame.type === 'error') options.write(`   error frame: ${String(frame.code)} ${String(frame.message)}`);
    else if (frame.topic === topic) options.write(`   ${String(frame.type).padEnd(8)} seq ${String(frame.seq)}`);
  });
  ws.send(JSON.stringify({ type: 'subscribe', id: 'tour', topics: [topic] }));
  await new Promise((resolve) => setTimeout(resolve, watchMs / 3));
  const participant = ((await client.call('GET', '/me')).json.participants as string[])[0];
  const clordId = `tour-bid-${Date.now().toString(36)}`;
  await client.call('POST', '/exchange/v1/trading/orders', {
    symbol,
    side: 'SIDE_BUY',
    type: 'ORDER_TYPE_LIMIT',
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    orderQty: '1',
    price: '5',
    clordId,
    account: participant,
  });
  await new Promise((resolve) => setTimeout(resolve, watchMs / 3));
  await client.call('POST', '/exchange/v1/trading/orders/cancel', { clordId, account: participant });
  await new Promise((resolve) => setTimeout(resolve, watchMs / 3));
  ws.close();
  const seen = frames.filter((frame) => frame.topic === topic).length;
  options.write(`   ${seen} frame(s) on ${topic}`);
  return seen;
}

export async function runTour(options: TourOptions): Promise<TourResult> {
  const client = new TourClient(options);
  options.write(`Tour of the gateway at ${options.url}`);
  const catalogCache = await catalogTwice(client, options.write);
  const symbol = await firstSymbol(client);
  const exchangeOrderState = await orderFilledByRetail(client, symbol, options.write);
  const framesSeen = await watchMarketData(options, client, symbol);
  options.write('Done. Everything above went through the gateway: one key, no upstream credential in the client.');
  return { catalogCache, exchangeOrderState, framesSeen };
}
