import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { status as GrpcStatus } from '@grpc/grpc-js';
import { ExchangeTokenProvider } from '@lib/auth';
import { OrderUpdates } from '@lib/exchange';
import type { TopicSink } from '@lib/fanout';

import { FEED_TIMING } from '../libs/exchange/src/grpc/feed-timing.js';
import { grpcTargetOf } from '../libs/exchange/src/grpc/grpc-target.js';
import {
  type AfterLoss,
  ReconnectingStream,
  type StreamFamily,
} from '../libs/exchange/src/grpc/reconnecting-stream.js';
import { ServerStreamingMethod } from '../libs/exchange/src/grpc/server-streaming-method.js';
import { type StreamStatus, statusName } from '../libs/exchange/src/grpc/stream-status.error.js';
import { type CallListener, UpstreamCall } from '../libs/exchange/src/grpc/upstream-call.js';
import { PARTICIPANT, type Stack, eventually, startStack } from './support/stack.js';

/** The public instrument-state call: no participant, the current state first, nothing else of the gateway's holds it. */
const CALL = 'CreateInstrumentStateChangeSubscription';

interface StateBatch {
  instruments: unknown[];
}

/** A family that only records: which bearer each call carried, what arrived, how calls ended. */
class RecordingFamily implements StreamFamily<StateBatch> {
  wants = true;
  readonly bearers: string[] = [];
  readonly batches: number[] = [];
  readonly losses: string[] = [];
  openCalls = 0;
  stream!: ReconnectingStream<StateBatch>;

  constructor(private readonly method: ServerStreamingMethod<{ symbols: string[] }, StateBatch>) {}

  wanted(): boolean {
    return this.wants;
  }

  open(authorization: string, listener: CallListener<StateBatch>): UpstreamCall<StateBatch> {
    this.bearers.push(authorization);
    const gauge = { streamOpened: () => this.openCalls++, streamClosed: () => this.openCalls-- };
    return new UpstreamCall(
      this.method.call({ symbols: [] }, authorization),
      authorization,
      false,
      listener,
      gauge,
      FEED_TIMING,
    );
  }

  message(): void {
    this.batches.push(this.bearers.length);
    this.stream.delivered();
  }

  lost(status: StreamStatus): AfterLoss {
    this.losses.push(statusName(status.code));
    return 'backoff';
  }

  unopened(error: Error): void {
    throw error;
  }
}

function sinkOf(): TopicSink {
  return { snapshot: () => undefined, update: () => undefined, gap: () => undefined };
}

describe(ReconnectingStream.name, () => {
  let stack: Stack;
  let method: ServerStreamingMethod<{ symbols: string[] }, StateBatch>;
  const reconnects: string[] = [];

  beforeAll(async () => {
    stack = await startStack();
    method = new ServerStreamingMethod(
      grpcTargetOf(stack.config),
      'polymarket/v1/dropcopy.proto',
      'polymarket.v1.DropCopyAPI',
      CALL,
    );
  });
  afterAll(async () => {
    method.close();
    await stack.close();
  });

  function streamOf(family: RecordingFamily, timing = FEED_TIMING): ReconnectingStream<StateBatch> {
    const tokens = stack.gateway.get(ExchangeTokenProvider);
    const target = grpcTargetOf(stack.config).target;
    family.stream = new ReconnectingStream(family, {
      tokens: {
        authorization: () => tokens.authorization(target),
        rejected: (authorization) => tokens.rejected(authorization),
      },
      timing,
      metrics: { reconnecting: (code) => reconnects.push(code) },
      warn: () => undefined,
    });
    return family.stream;
  }

  const openAtSandbox = () => stack.sandbox.state.streams.open({ call: CALL });
  const streamCounters = () =>
    Object.fromEntries(
      Object.entries(stack.sandbox.state.counterSnapshot()).filter(([name]) => name.startsWith('grpc.streams.')),
    );

  it('reopens a call the exchange ended, and the new call delivers', async () => {
    const family = new RecordingFamily(method);
    const sut = streamOf(family);
    sut.start();
    await eventually(
      async () => family.batches.length,
      (n) => n > 0,
    );

    expect(stack.sandbox.state.streams.cut({ call: CALL }, GrpcStatus.UNAVAILABLE, 'exchange restart')).toBe(1);
    await eventually(
      async () => family.batches.filter((call) => call === 2).length,
      (n) => n > 0,
    );
    sut.stop();

    expect(family.losses).toEqual(['UNAVAILABLE']);
    expect(family.bearers).toHaveLength(2);
    expect(reconnects.at(-1)).toBe('UNAVAILABLE');
    await eventually(
      async () => openAtSandbox(),
      (open) => open === 0,
    );
  });

  it('answers UNAUTHENTICATED by forgetting the bearer: the next call carries a new token', async () => {
    const family = new RecordingFamily(method);
    const sut = streamOf(family);
    sut.start();
    await eventually(
      async () => family.batches.length,
      (n) => n > 0,
    );

    // The exchange revokes every token and restarts: the reconnect with the old bearer is refused.
    stack.sandbox.state.revokeAccessTokens();
    stack.sandbox.state.streams.cut({ call: CALL }, GrpcStatus.UNAVAILABLE, 'exchange restart');
    await eventually(
      async () => family.batches.filter((call) => call === 3).length,
      (n) => n > 0,
      15_000,
    );
    sut.stop();

    expect(family.losses).toEqual(['UNAVAILABLE', 'UNAUTHENTICATED']);
    expect(family.bearers[1]).toBe(family.bearers[0]);
    expect(family.bearers[2]).not.toBe(family.bearers[1]);
    expect(stack.sandbox.state.counter('exchange.rejected.revoked')).toBeGreaterThanOrEqual(1);
  });

  it('stop() leaves no call, no pending attempt and no timer', async () => {
    const family = new RecordingFamily(method);
    // A retry due minutes after a loss (full jitter: uniform below the cap), so the stop below meets it
    // scheduled: a retry already made would be a call cancelled the moment it opened, which the sandbox's
    // gRPC server may never see as cancelled (a grpc-js race: the cancel can reach it before the request
    // is handed to the handler, which then opens a stream no event ends).
    const sut = streamOf(family, { ...FEED_TIMING, backoffInitialMs: 600_000, backoffMaxMs: 600_000 });
    sut.start();
    await eventually(
      async () => family.batches.length,
      (n) => n > 0,
    );

    // A loss schedules the next attempt: stopped there, nothing is due any more.
    stack.sandbox.state.streams.cut({ call: CALL }, GrpcStatus.UNAVAILABLE, 'exchange restart');
    await eventually(
      async () => family.losses.length,
      (n) => n === 1,
    );
    expect(sut.active).toBe(true);
    sut.stop();
    expect(sut.active).toBe(false);
    expect(sut.call).toBeUndefined();

    // Stopped with a call open: the call ends at the exchange too. Waited until the new call itself has
    // delivered (its stream is then held by the sandbox's handler, which hears the cancel).
    const opensBefore = family.bearers.length;
    family.wants = true;
    sut.start();
    await eventually(
      async () => family.batches.filter((call) => call === opensBefore + 1).length,
      (n) => n > 0,
    );
    expect(openAtSandbox()).toBe(1);
    sut.stop();
    expect(sut.active).toBe(false);
    expect(family.openCalls).toBe(0);
    // The last value says, if this fails, how the sandbox saw the calls open and end and what this side holds.
    await eventually(
      async () => ({ open: openAtSandbox(), ...streamCounters(), bearers: family.bearers.length, active: sut.active }),
      (seen) => seen.open === 0,
    );

    // Stopped while its token is on the way: no call is opened once the family no longer wants one.
    const opensThen = family.bearers.length;
    sut.start();
    family.wants = false;
    sut.stop();
    await stack.gateway.get(ExchangeTokenProvider).authorization(grpcTargetOf(stack.config).target);
    await eventually(
      async () => sut.active,
      (active) => !active,
    );
    expect(family.bearers).toHaveLength(opensThen);
    expect(openAtSandbox()).toBe(0);
  });
});

// Fixed: a call that could not be made (the open threw) was never tried again while the stream was still wanted.
describe('a held order stream whose first call cannot be made', () => {
  it('is retried until it opens', async () => {
    const protoDir = mkdtempSync(join(tmpdir(), 'gateway-protos-'));
    const stack = await startStack({ gateway: (input) => ({ ...input, exchange: { ...input.exchange, protoDir } }) });
    try {
      const orders = stack.gateway.get(OrderUpdates);
      const release = orders.hold();
      // The topic's open fails with the hold's first attempt: no protos to make the call with.
      await expect(orders.open(`exchange.orders.${PARTICIPANT}`, sinkOf())).rejects.toThrow(
        /order_entry\.proto|ENOENT|no such file/i,
      );
      cpSync('proto', protoDir, { recursive: true });
      const open = await eventually(
        async () => stack.sandbox.state.streams.open({ call: 'CreateOrderSubscription' }),
        (n) => n === 1,
        20_000,
      ).catch(() => 0);
      release();
      expect({ orderStreamsOpenAtTheExchange: open }).toEqual({ orderStreamsOpenAtTheExchange: 1 });
    } finally {
      await stack.close();
      rmSync(protoDir, { recursive: true, force: true });
    }
  });
});
