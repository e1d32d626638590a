import { type Stack, api, json, startStack } from './support/stack.js';

describe('gateway foundation', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ redis: true, clients: [{ id: 'reader', scopes: ['read:marketdata'] }] });
  });
  afterAll(() => stack.close());

  it('is live and ready with Redis up', async () => {
    const live = await fetch(`${stack.url}/health/live`);
    expect(live.status).toBe(200);
    const ready = await fetch(`${stack.url}/health/ready`);
    expect(ready.status).toBe(200);
    const body = await json(ready);
    expect(body.checks.redis.status).toBe('up');
  });

  it('answers 401 problem+json without a key', async () => {
    const res = await fetch(`${stack.url}/me`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem = await json(res);
    expect(problem).toMatchObject({ status: 401, code: 'UNAUTHENTICATED', title: expect.any(String), type: expect.any(String) });
    expect(problem.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('answers /me with the caller identity', async () => {
    const res = await api(stack, 'reader')('/me');
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: 'reader', team: 'platform', scopes: ['read:marketdata'] });
  });
});
