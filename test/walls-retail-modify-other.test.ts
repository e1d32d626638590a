import { type Stack, api, json, startStack } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const SLUG = 'aec-nfl-gb-chi-2026-11-22';
const CLIENTS = [
  {
    id: 'trading-app',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    retailAccounts: ['main'],
  },
  {
    id: 'platform-app',
    team: 'platform',
    scopes: ['write:orders' as const, 'read:orders' as const],
    retailAccounts: ['hedge'],
  },
];
const withLimit = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: { limits: [{ scope: 'firm', maxOpenNotional: 50 }] },
});
const usd = (value: string) => ({ value, currency: 'USD' });
const bid = (quantity: number, price: string) => ({
  marketSlug: SLUG,
  intent: 'ORDER_INTENT_BUY_LONG',
  price: usd(price),
  quantity,
});

describe("another team's retail order id named in a modify", () => {
  let stack: Stack;
  const post = (client: string, path: string, body: unknown) =>
    api(stack, client)(path, { method: 'POST', body: JSON.stringify(body) });

  beforeAll(async () => {
    stack = await startStack({ clients: CLIENTS, redis: true, gateway: withLimit });
  });
  afterAll(() => stack?.close());

  it('is answered 404 as an unknown id, not refused by the count of the order it names, which it leaves as it was', async () => {
    const created = await post('platform-app', '/retail/v1/orders', bid(10, '0.30'));
    expect(created.status).toBe(200);
    const { id } = await json(created);
    // Order ids are easy to guess (the sandbox's: O1, O2, ...): a modify naming another team's is answered as an unknown id.
    const unknown = await post('trading-app', '/retail/v1/order/O999999/modify', { marketSlug: SLUG, quantity: 1000 });
    expect(unknown.status).toBe(404);
    const big = await post('trading-app', `/retail/v1/order/${id}/modify`, { marketSlug: SLUG, quantity: 1000 });
    expect(big.status).toBe(404);
    expect(await json(big)).toMatchObject({ code: 'UPSTREAM_NOT_FOUND' });
    expect(stack.sandbox.state.engine.order(id)).toMatchObject({ orderQty: 10 });
    // Its share of the firm's count stays $3: $47 more fits exactly, a cent more does not.
    const fits = await post('platform-app', '/retail/v1/order/check', bid(94, '0.50'));
    expect(fits.status).toBe(200);
    const over = await post('platform-app', '/retail/v1/order/check', bid(95, '0.50'));
    expect(await json(over)).toMatchObject({ code: 'RISK_OPEN_NOTIONAL', observed: 50.5 });
  });
});
