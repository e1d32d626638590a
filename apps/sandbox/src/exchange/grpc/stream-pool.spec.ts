import { status as GrpcStatus } from '@grpc/grpc-js';

import { type PooledStream, StreamPool } from './stream-pool.js';

function stream(call: string, firm: string, ends: string[] = []): PooledStream {
  return {
    call,
    firm,
    clientId: `${firm}-client`,
    end: (code, _details, reason) => void ends.push(`${call}:${GrpcStatus[code]}:${reason}`),
  };
}

describe(StreamPool.name, () => {
  let now: number;
  let counters: Map<string, number>;
  let sut: StreamPool;
  beforeEach(() => {
    now = 1_000_000;
    counters = new Map();
    sut = new StreamPool(
      { maxStreamsPerFirm: 3, ingressPerSecond: 2, ingressWindowSeconds: 10 },
      (name, by = 1) => counters.set(name, (counters.get(name) ?? 0) + by),
      () => now,
    );
  });

  it('pools the limit across calls: the 4th stream of a firm is refused whatever its call, another firm is not', () => {
    expect([sut.admit(stream('A', 'F')), sut.admit(stream('B', 'F')), sut.admit(stream('C', 'F'))]).toEqual([
      true,
      true,
      true,
    ]);
    expect(sut.admit(stream('A', 'F'))).toBe(false);
    expect(sut.admit(stream('A', 'G'))).toBe(true);
    expect(sut.view()).toEqual({ byCall: { A: 2, B: 1, C: 1 }, byFirm: { F: 3, G: 1 } });
    expect(counters.get('grpc.streams.refused.resource_exhausted')).toBe(1);
  });

  it('frees a place when a stream is released', () => {
    const first = stream('A', 'F');
    for (const s of [first, stream('A', 'F'), stream('A', 'F')]) sut.admit(s);
    sut.release(first, 'cancelled');
    expect(sut.admit(stream('B', 'F'))).toBe(true);
    expect(counters.get('grpc.streams.open.firm.F')).toBe(3);
  });

  it('averages client messages over the window: a burst may spend the whole window, then waits for it to pass', () => {
    const taken = Array.from({ length: 21 }, () => sut.takeIngress('F'));
    expect(taken.filter(Boolean)).toHaveLength(20); // 2/s over 10 s
    now += 9_000;
    expect(sut.takeIngress('F')).toBe(false);
    now += 1_000;
    expect(sut.takeIngress('F')).toBe(true);
    expect(sut.takeIngress('G')).toBe(true);
  });

  it('cuts only the matching streams with the given code', () => {
    const ends: string[] = [];
    for (const s of [stream('A', 'F', ends), stream('B', 'F', ends), stream('A', 'G', ends)]) sut.admit(s);
    expect(sut.cut({ firm: 'F', call: 'A' }, GrpcStatus.UNAUTHENTICATED, 'revoked')).toBe(1);
    expect(ends).toEqual(['A:UNAUTHENTICATED:cut']);
  });

  it('an outage cuts the matching streams and refuses new ones of that call until lifted', () => {
    const ends: string[] = [];
    for (const s of [stream('A', 'F', ends), stream('B', 'F', ends)]) sut.admit(s);
    expect(sut.down({ call: 'A' })).toBe(1);
    expect(ends).toEqual(['A:UNAVAILABLE:cut']);
    expect([sut.refuses(stream('A', 'G')), sut.refuses(stream('B', 'F'))]).toEqual([true, false]);
    expect(counters.get('grpc.streams.refused.unavailable')).toBe(1);
    sut.up();
    expect(sut.refuses(stream('A', 'G'))).toBe(false);
  });
});
