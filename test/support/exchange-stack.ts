import { ExchangeTokenProvider } from '@lib/auth';

import { type Json, type Stack, type StackOptions, type TestClient, api, eventually, startStack } from './stack.js';
import type { WsTestClient } from './ws-client.js';
import type { GatewayConfigInput } from '../../apps/gateway/src/config/gateway-config.schema.js';

/** An OPEN instrument of the sandbox fixture. */
export const SYMBOL = 'aec-nfl-buf-kc-2026-11-22';
/** Another firm, trading straight on the engine: its side of a trade stays out of the firm's views. */
export const COUNTERPARTY = 'firms/OTHERFIRM/users/carol';

/**
 * Query limits of a few per minute would throttle a test that lists instruments a dozen times; both sides lift them.
 * The stack's other limits stay (with Redis, the tests' `maxDecisionAgeMs`: dropping it left the production 50 ms,
 * and a 50 ms stall between a batch's budget and its send on a busy CI machine refused it 429, ci55's sibling run).
 */
const liftGatewayQueryLimits = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  limits: {
    ...config.limits,
    buckets: {
      ...config.limits?.buckets,
      'exchange.instruments': { limit: 10_000, windowSeconds: 1 },
      'exchange.book': { limit: 10_000, windowSeconds: 1 },
      'exchange.search': { limit: 10_000, windowSeconds: 1 },
      'exchange.trade-stats': { limit: 10_000, windowSeconds: 1 },
    },
  },
});

export function startExchangeStack(clients: TestClient[] = [], options: StackOptions = {}): Promise<Stack> {
  return startStack({
    clients,
    gateway: liftGatewayQueryLimits,
    ...options,
    sandbox: {
      exchange: { limits: { instruments: 'off', book: 'off', search: 'off', 'trade-stats': 'off' } },
      ...options.sandbox,
    },
  });
}

/** Every exchange operation the sandbox ran (its `exchange.calls.*` counters): what the gateway sent upstream. */
export function upstreamCalls(stack: Stack): number {
  return Object.entries(stack.sandbox.state.counterSnapshot())
    .filter(([name]) => name.startsWith('exchange.calls.'))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** Waits until the gateway holds an exchange token (its own deadline is not the short request timeout some stacks set). */
export async function exchangeTokenReady(stack: Stack): Promise<void> {
  const tokens = stack.gateway.get(ExchangeTokenProvider);
  await eventually(
    async () =>
      tokens.authorization(stack.sandbox.urls.exchange).then(
        () => true,
        () => false,
      ),
    Boolean,
    15_000,
  );
}

/**
 * Another firm bids `price` on SYMBOL (straight on the engine) and `viewer`'s market-data topic of
 * SYMBOL must carry it (the stream still flows); resolves with the frame that did.
 */
export async function counterpartyBids(stack: Stack, viewer: WsTestClient, price: number): Promise<Json> {
  stack.sandbox.state.engine.insert({
    symbol: SYMBOL,
    side: 'SIDE_BUY',
    orderQty: 1,
    price,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: COUNTERPARTY,
  });
  const frames = await eventually(
    async () => viewer.topic(`exchange.marketData.${SYMBOL}`),
    (all) => all.at(-1)?.data.bids[0]?.px === String(price),
    20_000,
  );
  return frames.at(-1);
}

/** POST a JSON body through the gateway. */
export function post(
  stack: Stack,
  path: string,
  body: unknown,
  clientId = 'all',
  headers: Record<string, string> = {},
) {
  return api(stack, clientId)(path, { method: 'POST', body: JSON.stringify(body), headers });
}

export const limit = (side: 'SIDE_BUY' | 'SIDE_SELL', orderQty: number, price: number, extra: object = {}) => ({
  symbol: SYMBOL,
  side,
  type: 'ORDER_TYPE_LIMIT',
  timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
  orderQty: String(orderQty),
  price: String(price),
  ...extra,
});
