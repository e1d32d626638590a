import { StallProxy } from './support/stall-proxy.js';
import { type Stack, api, eventually, json, redisUrl, startStack } from './support/stack.js';

// The risk view reads the latched states and limits from memory, their change history from Redis.
// While Redis was cut or stalled, the history's read threw ioredis's own error: GET /admin/risk
// answered 500 INTERNAL, naming nothing. It is now a 503 naming the unreachable store, as a change
// of the states or limits meanwhile is.

describe('GET /admin/risk while Redis is out', () => {
  let stack: Stack;
  let proxy: StallProxy;
  beforeAll(async () => {
    proxy = await StallProxy.start(Number(new URL(redisUrl()).port));
    stack = await startStack({
      redis: true,
      gateway: (config) => ({ ...config, redis: { ...config.redis!, url: proxy.url } }),
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await proxy.close();
  });
  const view = () => api(stack)('/admin/risk');

  for (const fault of ['cut', 'stall'] as const)
    it(`answers a 503 problem naming the store, never a 500, while Redis is ${fault === 'cut' ? 'cut' : 'stalled'}`, async () => {
      const readable = () =>
        eventually(
          async () => (await view()).status,
          (status) => status === 200,
          10_000,
          100,
        );
      await readable();
      proxy[fault]();
      try {
        const res = await view();
        expect(res.status).toBe(503);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(await json(res)).toMatchObject({
          code: 'SERVICE_UNAVAILABLE',
          detail: expect.stringContaining('store is unreachable'),
        });
      } finally {
        proxy.restore();
      }
      await readable();
    }, 60_000);
});
