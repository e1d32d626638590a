import { type Stack, api, json, startStack } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const SLUG = 'aec-nfl-gb-chi-2026-11-22';
const CLIENTS = [
  {
    id: 'mod-app',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    retailAccounts: ['main'],
  },
];
const withLimit = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: { limits: [{ scope: 'client', id: 'mod-app', maxOpenNotional: 5 }] },
});
const usd = (value: string) => ({ value, currency: 'USD' });
const bid = (quantity: number, price: string) => ({
  marketSlug: SLUG,
  intent: 'ORDER_INTENT_BUY_LONG',
  price: usd(price),
  quantity,
});

describe('a retail modify moves its order in the open notional count (Redis), judged against its new values', () => {
  let stack: Stack;
  const modifies = () => stack.sandbox.state.counterSnapshot()['retail.route.modifyOrder'] ?? 0;
  const post = (path: string, body: unknown) =>
    api(stack, 'mod-app')(path, { method: 'POST', body: JSON.stringify(body) });
  const modify = (id: string, body: object) => post(`/retail/v1/order/${id}/modify`, { marketSlug: SLUG, ...body });

  beforeAll(async () => {
    stack = await startStack({ clients: CLIENTS, redis: true, gateway: withLimit });
  });
  afterAll(() => stack?.close());

  it('refuses a modify that would take the open notional past the limit, nothing sent; a smaller one moves the count', async () => {
    const created = await post('/retail/v1/orders', bid(10, '0.30'));
    expect(created.status).toBe(200);
    const { id } = await json(created);

    const before = modifies();
    // 20 × $0.30 = $6 over the $5.
    const grown = await modify(id, { quantity: 20 });
    expect(grown.status).toBe(422);
    expect(await json(grown)).toMatchObject({ code: 'RISK_OPEN_NOTIONAL', limit: 5, observed: 6, order: 'body' });
    // 10 × $0.55 = $5.50: a new price counts at the order's worst case too.
    expect(await json(await modify(id, { price: usd('0.55') }))).toMatchObject({
      code: 'RISK_OPEN_NOTIONAL',
      observed: 5.5,
    });
    expect(modifies()).toBe(before);

    // 15 × $0.30 = $4.50 fits, and stays counted: $0.60 more is refused at $5.10.
    expect((await modify(id, { quantity: 15 })).status).toBe(200);
    expect(stack.sandbox.state.engine.order(id)).toMatchObject({ orderQty: 15 });
    expect(await json(await post('/retail/v1/orders', bid(2, '0.30')))).toMatchObject({
      code: 'RISK_OPEN_NOTIONAL',
      observed: 5.1,
    });
    // Back down to 10: the room comes back.
    expect((await modify(id, { quantity: 10 })).status).toBe(200);
    expect((await post('/retail/v1/orders', bid(2, '0.30'))).status).toBe(200);
    expect(modifies()).toBe(before + 2);
  });
});
