import { RedisLatency } from './redis-latency.js';

describe(RedisLatency.name, () => {
  it('allows a steady round trip: its fastest as decision-age allowance, twice its upper tenth on the command timeout', () => {
    const sut = new RedisLatency(50, 50);
    for (let i = 0; i < 100; i++) sut.record(30 + (i % 10)); // 30–39 ms
    sut.update();
    expect(sut.allowanceMs).toBe(30);
    expect(sut.timeoutMs).toBe(50 + 2 * 39);
  });

  it('never allows more than its bound, and keeps the configured figures until it has measured', () => {
    const sut = new RedisLatency(50, 20);
    expect([sut.allowanceMs, sut.timeoutMs]).toEqual([0, 50]);
    for (let i = 0; i < 20; i++) sut.record(500);
    sut.update();
    expect([sut.allowanceMs, sut.timeoutMs]).toEqual([20, 90]);
  });

  it('a starved event loop (varying delays on a fast path) earns no allowance: some answers still come back fast', () => {
    const sut = new RedisLatency(50, 50);
    for (let i = 0; i < 100; i++) sut.record(i % 4 === 0 ? 1 : 20 + (i % 7) * 10);
    sut.update();
    expect(sut.allowanceMs).toBe(1);
  });

  it('a fast path changes nothing that matters: a millisecond of allowance', () => {
    const sut = new RedisLatency(50, 50);
    for (let i = 0; i < 50; i++) sut.record(0.4 + (i % 3) * 0.3);
    sut.update();
    expect(sut.allowanceMs).toBeLessThan(1);
    expect(sut.timeoutMs).toBeLessThanOrEqual(52);
  });
});
