import { MetricsRegistry } from '@lib/core';

import { LogCapture } from '../testing/log-capture.js';
import { ServerClockOffset } from './server-clock.js';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const dateAt = (ms: number): string => new Date(ms).toUTCString();

describe(ServerClockOffset.name, () => {
  let logs: LogCapture;
  let registry: MetricsRegistry;
  let sut: ServerClockOffset;

  beforeEach(() => {
    logs = LogCapture.install();
    registry = new MetricsRegistry();
    sut = new ServerClockOffset(5_000, registry);
  });

  it('learns the offset from the midpoint of the exchange and the middle of the Date second', () => {
    // Server 40 s ahead; the request took 200 ms.
    expect(sut.observe(dateAt(T0 + 40_000), T0 - 100, T0 + 100)).toBe(40_500);
    expect(sut.offsetMs).toBe(40_500);
  });

  it('ignores disagreements a one-second Date header cannot resolve', () => {
    sut.observe(dateAt(T0 + 10_000), T0, T0);
    // Both samples fit an offset of 10.5 s: the server read 10.9 s and 11.1 s past T0, showing 10 s and 11 s.
    expect(sut.observe(dateAt(T0 + 10_000), T0 + 400, T0 + 400)).toBe(0);
    expect(sut.observe(dateAt(T0 + 11_000), T0 + 600, T0 + 600)).toBe(0);
    expect(sut.offsetMs).toBe(10_500);
  });

  it('allows more disagreement when the round trip was slow', () => {
    sut.observe(dateAt(T0), T0 - 500, T0 - 500);
    expect(sut.observe(dateAt(T0 + 2_000), T0, T0 + 3_000)).toBe(0);
  });

  it('ignores missing or unreadable headers and impossible times', () => {
    expect(sut.observe(undefined, T0, T0)).toBe(0);
    expect(sut.observe('yesterday', T0, T0)).toBe(0);
    expect(sut.observe(dateAt(T0 + 60_000), T0, T0 - 1)).toBe(0);
    expect(sut.offsetMs).toBe(0);
  });

  it('says a 401 is worth one re-signed resend only when the offset moved by half the window', () => {
    expect(sut.observeUnauthorized(dateAt(T0 + 3_000), T0, T0)).toBe(false);
    expect(sut.observeUnauthorized(dateAt(T0 + 45_000), T0, T0)).toBe(true);
    expect(sut.observeUnauthorized(dateAt(T0 + 45_000), T0, T0)).toBe(false);
  });

  it('warns once each time the offset crosses the warning threshold, and exports it', async () => {
    sut.observe(dateAt(T0 + 6_000), T0, T0);
    sut.observe(dateAt(T0 + 9_000), T0, T0);
    sut.observe(dateAt(T0 + 1_000), T0, T0);
    sut.observe(dateAt(T0 - 8_000), T0, T0);

    expect(logs.lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
      expect.stringContaining('6500 ms'),
      expect.stringContaining('-7500 ms'),
    ]);
    expect(await registry.metrics()).toContain('gateway_retail_server_clock_offset_seconds -7.5');
  });
});
