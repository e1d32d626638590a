import { type Stack, api, json, startStack } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

/**
 * Team `platform` has (almost) no share of the catalog's public budget; team `trading` has all of it
 * (found by a probe). A miss of team trading that arrived while a miss of the same key by team platform
 * was being filled joined that fill, and was answered with platform's budget refusal (429, naming
 * platform), though trading's own share was untouched: one team's exhausted share refused another team's
 * catalog reads. Now a caller whose joined fill was refused for the leader's budget fetches under its own.
 */
const withShares = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  teams: [
    { id: 'platform', shares: { 'catalog.public': 0.01 } },
    { id: 'trading', shares: { 'catalog.public': 1 } },
  ],
  catalog: { ...config.catalog, budgetWaitMs: 0 },
});

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    redis: true,
    gateway: withShares,
    clients: [
      { id: 'team-a', team: 'platform', scopes: ['read:instruments'] },
      { id: 'team-b', team: 'trading', scopes: ['read:instruments'] },
    ],
  });
});
afterAll(() => stack.close());

it("a team's catalog miss is never refused for another team's exhausted share", async () => {
  const a = api(stack, 'team-a');
  const b = api(stack, 'team-b');
  // Spend team a's tiny share.
  for (let i = 0; i < 5; i++) await (await a(`/catalog/v1/events?limit=${90 + i}`)).arrayBuffer();
  const refusedA = await a('/catalog/v1/events?limit=99');
  expect(refusedA.status).toBe(429);
  expect(await json(refusedA)).toMatchObject({ code: 'RATE_LIMITED' });

  // Control: team b alone, on a key nobody else is filling, is served from its own share (paced as below).
  await new Promise((resolve) => setTimeout(resolve, 120));
  const alone = await b('/catalog/v1/events?limit=77');
  await alone.arrayBuffer();
  expect(alone.status).toBe(200);

  // Eight misses of keys team a is filling at the same moment, paced within the bucket's rate (20 a
  // second, spaced): team b's own share allows each.
  const bStatuses: number[] = [];
  for (let i = 1; i <= 8; i++) {
    await new Promise((resolve) => setTimeout(resolve, 120));
    const path = `/catalog/v1/events?limit=${i}`;
    const [, rb] = await Promise.all([a(path).then((r) => r.arrayBuffer()), b(path)]);
    bStatuses.push(rb.status);
    await rb.arrayBuffer();
  }
  expect(bStatuses.filter((s) => s !== 200)).toEqual([]);
});
