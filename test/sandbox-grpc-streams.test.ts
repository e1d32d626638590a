import { status as GrpcStatus } from '@grpc/grpc-js';

import type { RunningSandbox } from '../apps/sandbox/src/sandbox.js';
import { startTestSandbox } from './support/sandbox-harness.js';
import { type RecordedCall, SandboxGrpcClient } from './support/sandbox-grpc.js';
import { eventually } from './support/stack.js';

// The sandbox alone, judged over real gRPC with a client built from the proto files: the operator's
// streaming rules (upstream-facts, last section). Expectations are literals, never gateway schemas.

const FIRM = 'FIRMA';
const ALICE = `firms/${FIRM}/users/alice`;
/** Of another firm, so its executions stay out of the firm-scoped views. */
const CAROL = 'firms/FIRMB/users/carol';
const SYMBOL = 'aec-nfl-buf-kc-2026-11-22';
const OTHER = 'aec-nfl-dal-phi-2026-11-22';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Batch {
  resumeToken: Buffer;
  executions: { id: string; order: { account: string }; transactTime: { seconds: string } }[];
}
type MarketDataMessage =
  { event: 'heartbeat' } | { event: 'update'; update: { symbol: string; bids: { px: string; qty: string }[] } };

const updatesOf = (call: RecordedCall<MarketDataMessage>) =>
  call.messages.flatMap((m) => (m.event === 'update' ? [m.update] : []));

describe('sandbox gRPC streams', () => {
  let sandbox: RunningSandbox;
  let grpc: SandboxGrpcClient;
  const open: RecordedCall<unknown>[] = [];
  const track = <C extends RecordedCall<unknown>>(call: C): C => {
    open.push(call);
    return call;
  };

  beforeAll(async () => {
    sandbox = await startTestSandbox({
      exchange: {
        tokenTtlSeconds: 3,
        clients: [
          { clientId: 'desk', firm: FIRM, users: ['alice', 'bob'] },
          { clientId: 'other', firm: 'FIRMB', users: ['carol'] },
        ],
      },
    });
    grpc = new SandboxGrpcClient(sandbox);
  });
  afterEach(async () => {
    for (const call of open.splice(0)) call.cancel();
    await eventually(
      async () => sandbox.state.streams.open(),
      (n) => n === 0,
    );
    Object.assign(sandbox.state.dropCopy.faults, { delayMs: 0, duplicate: false });
    sandbox.state.setClockSkew(0);
  });
  afterAll(async () => {
    grpc.close();
    await sandbox.close();
  });

  /** Carol (FIRMB) rests a sell, Alice (FIRMA) buys into it: executions for both, a trade, two positions. */
  function cross(qty: number, px = 40): void {
    const order = { symbol: SYMBOL, orderQty: qty, price: px, timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL' } as const;
    sandbox.state.engine.insert({ ...order, side: 'SIDE_SELL', account: CAROL });
    sandbox.state.engine.insert({ ...order, side: 'SIDE_BUY', account: ALICE });
  }
  const bid = (symbol: string, px: number) =>
    sandbox.state.engine.insert({
      symbol,
      side: 'SIDE_BUY',
      orderQty: 1,
      price: px,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: ALICE,
    });

  it('keeps a stream open past the expiry of the token it started with; a new stream with that token is refused', async () => {
    const { token, md, orders } = await openWithFreshToken();
    sandbox.state.setClockSkew(10_000); // the 3 s token has now expired on the exchange's clock
    bid(SYMBOL, 31);
    await eventually(
      async () => updatesOf(md).length,
      (n) => n === 2,
    );
    await eventually(
      async () => orders.messages.length,
      (n) => n === 2,
    );

    expect(updatesOf(md)[1].bids[0]).toEqual({ px: '31', qty: '1' });
    expect(orders.messages[1]).toMatchObject({
      event: 'update',
      update: { executions: [{ type: 'EXECUTION_TYPE_NEW', order: { account: ALICE, price: '31' } }] },
    });
    expect(sandbox.state.streams.open()).toBe(2);
    const late = grpc.serverStream('marketData', 'CreateMarketDataSubscription', { symbols: [SYMBOL] }, { token });
    expect(await late.status).toMatchObject({
      code: GrpcStatus.UNAUTHENTICATED,
      details: expect.stringContaining('expired'),
    });
    expect(sandbox.state.counter('grpc.marketData.ended.expired')).toBe(0);
  });

  /** A market-data and an order stream on one 3 s token; on a machine so busy the token lapsed before they started, again. */
  async function openWithFreshToken() {
    for (let attempt = 1; ; attempt++) {
      const token = grpc.token('desk');
      const md = track(
        grpc.serverStream<MarketDataMessage>(
          'marketData',
          'CreateMarketDataSubscription',
          { symbols: [SYMBOL] },
          { token },
        ),
      );
      const orders = track(
        grpc.serverStream<{ sessionId: string }>(
          'orderEntry',
          'CreateOrderSubscription',
          {},
          { token, participant: ALICE },
        ),
      );
      const ended = { md: false, orders: false };
      void md.status.then(() => (ended.md = true));
      void orders.status.then(() => (ended.orders = true));
      await eventually(
        async () => [md.messages.length > 0 || ended.md, orders.messages.length > 0 || ended.orders],
        (both) => both.every(Boolean),
      );
      if (!ended.md && !ended.orders) return { token, md, orders };
      if (attempt === 3) throw new Error('the streams never started within their token lifetime');
      md.cancel();
      orders.cancel();
    }
  }

  it('refuses 1,001 symbols with INVALID_ARGUMENT, on a subscription and on a bidirectional stream', async () => {
    const token = grpc.token('desk');
    const symbols = Array.from({ length: 1001 }, (_, i) => `aec-sym-${i}`);
    const call = grpc.serverStream('marketData', 'CreateMarketDataSubscription', { symbols }, { token });
    expect(await call.status).toEqual(
      expect.objectContaining({ code: GrpcStatus.INVALID_ARGUMENT, details: 'at most 1000 symbols per subscription' }),
    );

    const bidi = track(grpc.duplex<MarketDataMessage>('marketData', 'BiDirectionalStreamMarketData', { token }));
    bidi.send({ addSymbols: [SYMBOL] });
    await eventually(
      async () => updatesOf(bidi).length,
      (n) => n === 1,
    );
    bidi.send({ addSymbols: symbols.slice(0, 1000) }); // 1,001 with the one it carries
    expect(await bidi.status).toMatchObject({
      code: GrpcStatus.INVALID_ARGUMENT,
      details: 'at most 1000 symbols per subscription',
    });
  });

  it('adds and removes symbols on a live bidirectional stream without reconnecting', async () => {
    const openedBefore = sandbox.state.counter('grpc.streams.opened.BiDirectionalStreamMarketData');
    const bidi = track(
      grpc.duplex<MarketDataMessage>('marketData', 'BiDirectionalStreamMarketData', { token: grpc.token('desk') }),
    );
    bidi.send({ addSymbols: [SYMBOL], depth: 3 });
    await eventually(
      async () => updatesOf(bidi).map((u) => u.symbol),
      (s) => s.length === 1,
    );
    bid(SYMBOL, 32);
    await eventually(
      async () => updatesOf(bidi).length,
      (n) => n === 2,
    );
    bidi.send({ addSymbols: [OTHER], removeSymbols: [SYMBOL] });
    await eventually(
      async () => updatesOf(bidi).length,
      (n) => n === 3,
    );
    bid(SYMBOL, 33); // removed: no update
    bid(OTHER, 34);
    await eventually(
      async () => updatesOf(bidi).length,
      (n) => n === 4,
    );

    expect(updatesOf(bidi).map((u) => u.symbol)).toEqual([SYMBOL, SYMBOL, OTHER, OTHER]);
    expect(updatesOf(bidi)[3].bids[0]).toEqual({ px: '34', qty: '1' });
    expect(sandbox.state.counter('grpc.streams.opened.BiDirectionalStreamMarketData')).toBe(openedBefore + 1); // one stream all along
    expect(sandbox.state.streams.open({ call: 'BiDirectionalStreamMarketData' })).toBe(1);
  });

  it('pools 20 concurrent streams per firm across every streaming call: the 21st of any call is RESOURCE_EXHAUSTED', async () => {
    const token = grpc.token('desk');
    const auth = { token, participant: ALICE };
    for (let i = 0; i < 5; i++) {
      track(grpc.serverStream('marketData', 'CreateMarketDataSubscription', { symbols: [SYMBOL] }, auth));
      track(grpc.serverStream('orderEntry', 'CreateOrderSubscription', {}, auth));
      track(grpc.serverStream('dropCopy', 'CreatePositionChangeSubscription', {}, auth));
      track(grpc.serverStream('dropCopy', 'CreateInstrumentStateChangeSubscription', {}, auth));
    }
    await eventually(
      async () => sandbox.state.streams.open({ firm: FIRM }),
      (n) => n === 20,
    );
    const refused = [
      grpc.serverStream('dropCopy', 'CreateDropCopySubscription', {}, auth),
      grpc.serverStream('marketData', 'CreateMarketDataSubscription', { symbols: [SYMBOL] }, auth),
      grpc.duplex('marketData', 'BiDirectionalStreamMarketData', auth),
    ];
    for (const call of refused) expect(await call.status).toMatchObject({ code: GrpcStatus.RESOURCE_EXHAUSTED });
    const other = track(
      grpc.serverStream('dropCopy', 'CreateInstrumentStateChangeSubscription', {}, { token: grpc.token('other') }),
    );
    await eventually(
      async () => other.messages.length,
      (n) => n > 0,
    );

    const view = await (await fetch(`${sandbox.urls.exchange}/_sandbox/grpc/streams`)).json();
    expect(view).toEqual({
      open: 21,
      byFirm: { [FIRM]: 20, FIRMB: 1 },
      byCall: {
        CreateMarketDataSubscription: 5,
        CreateOrderSubscription: 5,
        CreatePositionChangeSubscription: 5,
        CreateInstrumentStateChangeSubscription: 6,
      },
    });
    expect(sandbox.state.counter(`grpc.streams.open.firm.${FIRM}`)).toBe(20);
  });

  it('replays every execution after a resume token at least once, duplicated and delayed batches included', async () => {
    const auth = { token: grpc.token('desk'), participant: ALICE };
    const produced: string[] = [];
    const stop = sandbox.state.engine.on(
      'execution',
      ({ execution }) => execution.order.account === ALICE && produced.push(execution.id),
    );
    try {
      const live = track(grpc.serverStream<Batch>('dropCopy', 'CreateDropCopySubscription', {}, auth));
      await sleep(50);
      cross(2);
      await eventually(
        async () => live.messages.flatMap((b) => b.executions).length,
        (n) => n === produced.length,
      );
      const token = live.messages.at(-1)!.resumeToken;
      const seen = new Set(produced);
      live.cancel();
      cross(3, 41);
      cross(1, 42);
      const missed = produced.filter((id) => !seen.has(id));
      expect(missed.length).toBe(4); // Alice's NEW and FILL of each cross

      Object.assign(sandbox.state.dropCopy.faults, { delayMs: 20, duplicate: true });
      const replay = track(
        grpc.serverStream<Batch>('dropCopy', 'CreateDropCopySubscription', { resumeToken: token }, auth),
      );
      cross(1, 43); // live after the replay, on the same stream
      const caughtUp = () => replay.messages.some((b) => b.executions.length === 0 && b.resumeToken.length > 0);
      await eventually(
        async () => new Set(replay.messages.flatMap((b) => b.executions.map((e) => e.id))),
        (ids) => caughtUp() && produced.every((id) => seen.has(id) || ids.has(id)),
      );
      const replayed = replay.messages.flatMap((b) => b.executions.map((e) => e.id));
      expect(replayed.filter((id) => seen.has(id))).toEqual([]); // nothing from before the token
      expect(replayed.length).toBeGreaterThan(new Set(replayed).size); // duplicated: clients must dedupe on id
      expect(
        new Set(replay.messages.flatMap((b) => b.executions.map((e) => e.order.account.split('/users/')[0]))),
      ).toEqual(new Set([`firms/${FIRM}`]));
    } finally {
      stop();
    }
  });

  it('replays from a resume time, and refuses a token it never issued and another firm', async () => {
    const auth = { token: grpc.token('desk'), participant: ALICE };
    const from = sandbox.state.clock.now();
    await sleep(5);
    const produced: string[] = [];
    const stop = sandbox.state.engine.on(
      'execution',
      ({ execution }) => execution.order.account === ALICE && produced.push(execution.id),
    );
    cross(1, 44);
    stop();
    const byTime = track(
      grpc.serverStream<Batch>(
        'dropCopy',
        'CreateDropCopySubscription',
        { resumeTime: { seconds: String(Math.floor(from / 1000)), nanos: (from % 1000) * 1e6 } },
        auth,
      ),
    );
    const ids = await eventually(
      async () => byTime.messages.flatMap((b) => b.executions.map((e) => e.id)),
      (seen) => produced.every((id) => seen.includes(id)),
    );
    expect(produced).toHaveLength(2); // Alice's NEW and FILL; Carol's are FIRMB's
    expect(ids).toEqual(expect.arrayContaining(produced));
    const times = byTime.messages.flatMap((b) => b.executions.map((e) => Number(e.transactTime.seconds)));
    expect(Math.min(...times)).toBeGreaterThanOrEqual(Math.floor(from / 1000));
    const forged = grpc.serverStream(
      'dropCopy',
      'CreateDropCopySubscription',
      { resumeToken: Buffer.from('forged') },
      auth,
    );
    expect(await forged.status).toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    const foreign = grpc.serverStream('dropCopy', 'CreateDropCopySubscription', { firms: ['FIRMB'] }, auth);
    expect(await foreign.status).toMatchObject({ code: GrpcStatus.PERMISSION_DENIED });
    const noParticipant = grpc.serverStream('dropCopy', 'CreateDropCopySubscription', {}, { token: auth.token });
    expect(await noParticipant.status).toMatchObject({ code: GrpcStatus.PERMISSION_DENIED });
  });

  it('reports trades with their executions and state, positions as they change, and instrument states snapshot first', async () => {
    const auth = { token: grpc.token('desk'), participant: ALICE };
    const trades = track(
      grpc.serverStream<{ tradeCaptureReports: object[] }>(
        'dropCopy',
        'CreateTradeCaptureReportSubscription',
        { symbols: [SYMBOL] },
        auth,
      ),
    );
    const positions = track(
      grpc.serverStream<{ positionChanges: object[] }>('dropCopy', 'CreatePositionChangeSubscription', {}, auth),
    );
    const states = track(
      grpc.serverStream<{ instruments: { symbol: string; state: string }[] }>(
        'dropCopy',
        'CreateInstrumentStateChangeSubscription',
        { symbols: [OTHER] },
        { token: auth.token },
      ),
    );
    await eventually(
      async () => states.messages.length,
      (n) => n === 1,
    );
    cross(2, 45);
    sandbox.state.engine.setState(OTHER, 'INSTRUMENT_STATE_HALTED');
    try {
      const carrying = (call: RecordedCall<object>) =>
        call.messages.filter((m) => Object.values(m).some((v) => Array.isArray(v) && v.length > 0)).length;
      await eventually(
        async () => [trades, positions, states].map(carrying),
        ([t, p, s]) => t > 0 && p > 0 && s === 2,
      );
    } finally {
      sandbox.state.engine.setState(OTHER, 'INSTRUMENT_STATE_OPEN');
    }

    expect(states.messages[0].instruments).toEqual([
      expect.objectContaining({ symbol: OTHER, state: 'INSTRUMENT_STATE_OPEN' }),
    ]);
    expect(states.messages.flatMap((m) => m.instruments)[1]).toMatchObject({
      symbol: OTHER,
      state: 'INSTRUMENT_STATE_HALTED',
    });
    const [report] = trades.messages.flatMap((m) => m.tradeCaptureReports);
    expect(report).toMatchObject({
      symbol: SYMBOL,
      px: '45',
      qty: '2',
      tradeType: 'TRADE_TYPE_REGULAR',
      state: 'TRADE_STATE_CLEARED',
      aggressor: { aggressor: true, order: { account: ALICE } },
    });
    expect(report).toHaveProperty('passive', null); // Carol's side is FIRMB's
    expect(positions.messages.flatMap((m) => m.positionChanges)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          position: expect.objectContaining({ account: ALICE, symbol: SYMBOL }),
          changeTime: expect.objectContaining({ seconds: expect.any(String) }),
        }),
      ]),
    );
  });

  it('starts the order stream with the open orders, then executions and cancel rejects, each response naming the session', async () => {
    const resting = bid(OTHER, 20);
    const orders = track(
      grpc.serverStream<{ sessionId: string; event: string; snapshot?: { orders: { id: string }[] } }>(
        'orderEntry',
        'CreateOrderSubscription',
        { symbols: [OTHER] },
        { token: grpc.token('desk'), participant: ALICE },
      ),
    );
    await eventually(
      async () => orders.messages.length,
      (n) => n === 1,
    );
    sandbox.state.engine.cancel({ account: ALICE, orderId: resting.orderId });
    await eventually(
      async () => orders.messages.length,
      (n) => n === 2,
    );

    expect(orders.messages[0].snapshot!.orders.map((o) => o.id)).toContain(resting.orderId);
    expect(orders.messages[1]).toMatchObject({
      event: 'update',
      update: { executions: [{ type: 'EXECUTION_TYPE_CANCELED', order: { id: resting.orderId } }] },
    });
    expect(() => sandbox.state.engine.cancel({ account: ALICE, orderId: resting.orderId })).toThrow(); // already canceled
    await eventually(
      async () => orders.messages.length,
      (n) => n === 3,
    );
    expect(orders.messages[2]).toMatchObject({
      event: 'update',
      update: {
        executions: [],
        cancelReject: { orderId: resting.orderId, account: ALICE, text: expect.stringContaining('CANCELED') },
      },
    });
    expect(new Set(orders.messages.map((m) => m.sessionId)).size).toBe(1);
    const foreign = grpc.serverStream(
      'orderEntry',
      'CreateOrderSubscription',
      { accounts: ['firms/FIRMB/users/carol'] },
      { token: grpc.token('desk'), participant: ALICE },
    );
    expect(await foreign.status).toMatchObject({ code: GrpcStatus.PERMISSION_DENIED });
  });

  it('ends streams on an operator cut: UNAUTHENTICATED for a revoked key, and only the matching ones', async () => {
    const token = grpc.token('desk');
    const mine = track(
      grpc.serverStream('marketData', 'CreateMarketDataSubscription', { symbols: [SYMBOL] }, { token }),
    );
    const theirs = track(
      grpc.serverStream(
        'marketData',
        'CreateMarketDataSubscription',
        { symbols: [SYMBOL] },
        { token: grpc.token('other') },
      ),
    );
    await eventually(
      async () => sandbox.state.streams.open(),
      (n) => n === 2,
    );
    const res = await fetch(`${sandbox.urls.exchange}/_sandbox/grpc/streams/cut`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'UNAUTHENTICATED', clientId: 'desk' }),
    });
    expect(await res.json()).toEqual({ cut: 1 });
    expect(await mine.status).toMatchObject({ code: GrpcStatus.UNAUTHENTICATED });
    expect(sandbox.state.streams.open()).toBe(1);
    expect(theirs.messages.length).toBeGreaterThan(0);
  });
});

describe('sandbox gRPC ingress', () => {
  it('refuses client messages past the firm rate averaged over the window, across streams', async () => {
    // 0.05/s over 60 s: 3 client messages a minute for the firm.
    const sandbox = await startTestSandbox({
      grpc: { ingressPerSecond: 0.05 },
      exchange: { clients: [{ clientId: 'desk', firm: FIRM, users: ['alice'] }] },
    });
    const grpc = new SandboxGrpcClient(sandbox);
    try {
      const token = grpc.token('desk');
      const first = grpc.serverStream('marketData', 'CreateMarketDataSubscription', { symbols: [SYMBOL] }, { token }); // 1
      const bidi = grpc.duplex<MarketDataMessage>('marketData', 'BiDirectionalStreamMarketData', { token });
      bidi.send({ addSymbols: [SYMBOL] }); // 2
      bidi.send({}); // 3: a keep-alive counts too
      await eventually(
        async () => updatesOf(bidi).length,
        (n) => n === 1,
      );
      bidi.send({ addSymbols: [OTHER] }); // 4
      expect(await bidi.status).toMatchObject({ code: GrpcStatus.RESOURCE_EXHAUSTED });
      const refused = grpc.serverStream('marketData', 'CreateMarketDataSubscription', { symbols: [SYMBOL] }, { token });
      expect(await refused.status).toMatchObject({ code: GrpcStatus.RESOURCE_EXHAUSTED });
      first.cancel();
    } finally {
      grpc.close();
      await sandbox.close();
    }
  });
});
