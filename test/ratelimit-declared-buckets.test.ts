import { CATALOG_BUCKET_NAMES } from '@lib/catalog';
import { EXCHANGE_BUCKET_NAMES } from '@lib/exchange';
import { type BucketDeclaration, type RouteBudget, RateLimiter, budgetFor } from '@lib/ratelimit';
import { RETAIL_BUCKET_NAMES } from '@lib/retail';

import { type Stack, api, json, startStack } from './support/stack.js';

/**
 * A bucket declared the way a surface lib declares one (data: name, scope, published limit, the line
 * it comes from), handed to the limiter the way ExchangeModule, RetailModule and CatalogModule hand
 * theirs at start: neither libs/ratelimit nor libs/core names it, yet the shared budget (real Redis)
 * enforces it and the limits view shows it.
 */
const WIDGETS: BucketDeclaration = {
  name: 'test.widgets',
  scope: 'firm',
  limit: 3,
  windowSeconds: 1_000,
  safetyMargin: 1,
  source: 'test-only: 3 per 1,000 s',
};
/** What an operation spending it would declare next to its call. */
const LIST_WIDGETS: RouteBudget = { buckets: ['test.widgets'], class: 'read' };

let stack: Stack;
let limiter: RateLimiter;
beforeAll(async () => {
  stack = await startStack({ redis: true, clients: [{ id: 'ops', scopes: ['admin'] }] });
  limiter = stack.gateway.get(RateLimiter);
  limiter.buckets.declare(WIDGETS);
});
afterAll(async () => {
  await stack.close();
});

describe('a bucket declared outside the limiter', () => {
  it('is enforced at its published limit: never more allowed, each refusal naming the bucket', async () => {
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await limiter.take(budgetFor(LIST_WIDGETS, 'platform')));
    const allowed = decisions.filter((d) => d.allowed);
    expect(allowed.length).toBeLessThanOrEqual(WIDGETS.limit);
    expect(allowed.length).toBeGreaterThan(0);
    for (const refused of decisions.filter((d) => !d.allowed))
      expect(refused).toMatchObject({ bucket: 'test.widgets', limitedBy: 'bucket', limit: 3 });
    expect(decisions.slice(WIDGETS.limit).every((d) => !d.allowed)).toBe(true);
  });

  it('is shown in the limits view with its published figure and scope', async () => {
    const res = await api(stack, 'ops')('/admin/limits');
    expect(res.status).toBe(200);
    const view = await json(res);
    expect(view.buckets).toContainEqual(
      expect.objectContaining({
        bucket: 'test.widgets',
        scope: 'firm',
        published: 3,
        windowSeconds: 1_000,
        capacity: 3,
      }),
    );
  });
});

describe('the limiter', () => {
  it('enforces exactly the buckets the surface libs declare (and the one above): none of its own', async () => {
    const view = await json(await api(stack, 'ops')('/admin/limits'));
    const listed = new Set<string>(view.buckets.map((b: { bucket: string }) => b.bucket));
    expect([...listed].sort()).toEqual(
      [...RETAIL_BUCKET_NAMES, ...EXCHANGE_BUCKET_NAMES, ...CATALOG_BUCKET_NAMES, WIDGETS.name].sort(),
    );
  });

  it('refuses to spend a bucket nobody declared, naming it', async () => {
    await expect(limiter.take(budgetFor({ buckets: ['test.undeclared'], class: 'read' }, 'platform'))).rejects.toThrow(
      /test\.undeclared/,
    );
  });
});
