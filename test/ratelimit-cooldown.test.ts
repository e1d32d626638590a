import { limit } from './support/exchange-stack.js';
import { type Fleet, startFleet } from './support/fleet.js';
import type { GatewayProcess } from './support/gateway-process.js';
import { type Answer, answerOf, caller, restingBuy, tally } from './support/load.js';
import { type Json, type Stack, json } from './support/stack.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const COOL_SECONDS = 4;

/**
 * The cool-down matrix (issue 15): an upstream 429 cools the buckets of the route that got it, for the
 * class that sent it, on every instance; nothing else. "Global Rate Limit Exceeded" cools nothing.
 */
describe('upstream cool-downs across three gateway processes', () => {
  let cluster: Fleet | undefined;
  let stack: Stack;
  let fleet: GatewayProcess[] = [];
  let calls: ReturnType<typeof caller>[];
  let serial = 0;

  beforeAll(async () => {
    cluster = await startFleet('cooldown');
    ({ stack, processes: fleet, calls } = cluster);
  }, 90_000);
  afterAll(() => cluster?.close());

  const post = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body) });
  /** A resting order created through `gateway`: its id and market. */
  async function createOn(gateway: number): Promise<{ id: string; slug: string }> {
    const order = restingBuy(serial++);
    const created = await calls[gateway]('/retail/v1/orders', order);
    expect(created.status).toBe(200);
    return {
      id: ((await json(created)) as { id: string }).id,
      slug: (JSON.parse(order.body as string) as { marketSlug: string }).marketSlug,
    };
  }
  const cancel = (gateway: number, order: { id: string; slug: string }) =>
    answerOf(calls[gateway](`/retail/v1/order/${order.id}/cancel`, post({ marketSlug: order.slug })));
  /** On every instance: one create, one cancel of an order it created, and one cancel-all. */
  async function ordersFlowEverywhere(): Promise<Answer[]> {
    const answers: Answer[] = [];
    for (let gateway = 0; gateway < calls.length; gateway++) {
      const created = await answerOf(calls[gateway]('/retail/v1/orders', restingBuy(serial++)));
      answers.push(created);
      answers.push(await cancel(gateway, await createOn(gateway)));
      answers.push(
        await answerOf(
          calls[gateway]('/retail/v1/orders/open/cancel', post({ slugs: ['aec-nfl-det-min-2026-11-22'] })),
        ),
      );
    }
    return answers;
  }
  /** Polls until `path` passes on every instance (the cool-down ended everywhere); fails after 3 × the cool-down. */
  async function waitUntilFlowing(path: string, init?: () => RequestInit): Promise<void> {
    const deadline = Date.now() + 3 * COOL_SECONDS * 1_000;
    const flowing = new Set<number>();
    const seen: Answer[] = [];
    while (flowing.size < calls.length && Date.now() < deadline) {
      for (let gateway = 0; gateway < calls.length; gateway++) {
        if (flowing.has(gateway)) continue; // spare the bucket (GET /v1/order/{id} holds 2)
        const answer = await answerOf(calls[gateway](path, init?.()));
        seen.push(answer);
        if (answer.status === 200) flowing.add(gateway);
      }
      await sleep(400);
    }
    console.log(`${path} after the cool-down: ${JSON.stringify(tally(seen))}`);
    expect([...flowing].sort()).toEqual([0, 1, 2]);
  }

  it('cools reads only after a 429 on a read: creates, cancels and cancel-all flow on every instance', async () => {
    const { state } = stack.sandbox;
    state.retail.limiter.reset();
    const { id } = await createOn(0);
    state.retail.throttleNext('getOrder', 1, COOL_SECONDS);
    const sentAt = Date.now();
    const refused = await calls[0](`/retail/v1/order/${id}`);
    expect(refused.status).toBe(429);
    expect(await json(refused)).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED' });
    await sleep(100); // the cool-down is written to Redis after the answer

    const orders = await ordersFlowEverywhere();
    const reads: Answer[] = [];
    for (const call of calls) reads.push(await answerOf(call(`/retail/v1/order/${id}`)));
    const inside = Date.now() < sentAt + COOL_SECONDS * 1_000;
    console.log(
      `429 on GET /v1/order/{id}: orders and cancels on 3 instances ${JSON.stringify(tally(orders))}; reads of the order ${JSON.stringify(tally(reads))} (inside the cool-down: ${inside})`,
    );
    expect(orders.map((a) => a.status)).toEqual(orders.map(() => 200));
    if (inside)
      expect(reads).toEqual(
        reads.map(() => expect.objectContaining({ status: 429, code: 'RATE_LIMITED', limitedBy: 'cool-down' })),
      );
    await waitUntilFlowing(`/retail/v1/order/${id}`);
  }, 60_000);

  it('cools creates only after a 429 on a create: cancels and reads flow on every instance', async () => {
    const { state } = stack.sandbox;
    state.retail.limiter.reset();
    const orders = [await createOn(0), await createOn(1), await createOn(2)];
    state.retail.throttleNext('createOrder', 1, COOL_SECONDS);
    const sentAt = Date.now();
    expect((await calls[1]('/retail/v1/orders', restingBuy(serial++))).status).toBe(429);
    await sleep(100);

    const creates: Answer[] = [];
    const others: Answer[] = [];
    for (let gateway = 0; gateway < calls.length; gateway++) {
      creates.push(await answerOf(calls[gateway]('/retail/v1/orders', restingBuy(serial++))));
      others.push(await cancel(gateway, orders[gateway]));
      others.push(await answerOf(calls[gateway]('/retail/v1/account/balances')));
    }
    const inside = Date.now() < sentAt + COOL_SECONDS * 1_000;
    console.log(
      `429 on POST /v1/orders: creates ${JSON.stringify(tally(creates))} (inside the cool-down: ${inside}); cancels and reads ${JSON.stringify(tally(others))}`,
    );
    expect(others.map((a) => a.status)).toEqual(others.map(() => 200));
    if (inside)
      expect(creates).toEqual(creates.map(() => expect.objectContaining({ status: 429, limitedBy: 'cool-down' })));
    await waitUntilFlowing('/retail/v1/orders', () => restingBuy(serial++));
  }, 60_000);

  it('answers "Global Rate Limit Exceeded" as a retryable ORDER_REJECTED_LATENCY and cools nothing', async () => {
    const { state } = stack.sandbox;
    state.setFaults({ latencyRejectNext: 1 });
    const order = (clordId: string) => post(limit('SIDE_BUY', 1, 10, { clordId }));
    const rejected = await calls[2]('/exchange/v1/trading/orders', order(`glre-${process.pid}-0`));
    const problem: Json = await json(rejected);
    expect(rejected.status).toBe(503);
    expect(problem).toMatchObject({
      code: 'ORDER_REJECTED_LATENCY',
      retryable: true,
      processed: false,
      clordId: `glre-${process.pid}-0`,
    });
    expect(state.counter('exchange.latency-rejected.insertOrder')).toBe(1);
    await sleep(100);

    // The same order sent again at once, then one more per instance: none is held back.
    const resent = await answerOf(calls[2]('/exchange/v1/trading/orders', order(`glre-${process.pid}-0`)));
    const next = await Promise.all(
      calls.map((call, gateway) =>
        answerOf(call('/exchange/v1/trading/orders', order(`glre-${process.pid}-${gateway + 1}`))),
      ),
    );
    console.log(
      `Global Rate Limit Exceeded on an insert: resend ${resent.status}; inserts right after on 3 instances ${JSON.stringify(tally(next))}`,
    );
    expect([resent, ...next].map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(state.counter('exchange.throttled.order-entry')).toBe(0);
  }, 30_000);

  it('shows no cool-down left on any instance', async () => {
    for (const gateway of fleet) {
      const view: Json = await json(await caller(gateway.url, stack.keys.all)('/admin/limits'));
      const cooling = (view.buckets as { bucket: string; coolDownMs?: number }[]).filter(
        (b) => (b.coolDownMs ?? 0) > 0,
      );
      expect(cooling).toEqual([]);
    }
  });
});
