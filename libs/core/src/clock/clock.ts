import { Global, Module } from '@nestjs/common';

/**
 * Injectable time source so tests can move time without sleeping; the one place the process reads time.
 * `now()` is steady (measure intervals with it: ages, deadlines, windows, buckets); `wallNow()` is the
 * wall clock, which steps with NTP or `date -s` (only for an instant another party or a later process
 * reads: a log line's time, a stored row's stamp compared with the next read, an HTTP date).
 */
export abstract class Clock {
  /** Steady epoch milliseconds (see steadyNow in production). */
  abstract now(): number;

  /** The wall clock's epoch milliseconds, `Date.now()`; fakes that only drive `now()` keep the real one. */
  wallNow(): number {
    return Date.now();
  }
}

/**
 * Milliseconds since the epoch as this process's clock read them at start, advanced by the monotonic
 * clock since (`performance.timeOrigin + performance.now()`). It never steps: an NTP correction or an
 * operator's `date -s` moves `Date.now()` by the step, not this, so every interval measured with it
 * (buckets, timeouts, leases, token lifetimes) stays true (issue 30). An instant another party judges
 * (a signed timestamp, a JWT `iat`) adds the offset learned from that party's answers instead.
 */
export function steadyNow(): number {
  return performance.timeOrigin + performance.now();
}

/** The epoch milliseconds an HTTP `Date` header names (one-second resolution), or undefined when absent or unreadable. */
export function httpDateMs(header: string | undefined): number | undefined {
  const date = header === undefined ? Number.NaN : Date.parse(header);
  return Number.isNaN(date) ? undefined : date;
}

/**
 * A server's clock minus ours, from one answer's `Date` header: the header was written between `sentAt`
 * and `receivedAt` (our steady clock), at a server time in [Date, Date + 1 s); the midpoints of both
 * estimate the offset. Undefined without a readable header or with a reply before its request.
 */
export function offsetFromDate(header: string | undefined, sentAt: number, receivedAt: number): number | undefined {
  const date = httpDateMs(header);
  if (date === undefined || receivedAt < sentAt) return undefined;
  return Math.round(date + 500 - (sentAt + receivedAt) / 2);
}

/** The production clock: steadyNow(), never the stepping wall clock. */
export class SystemClock extends Clock {
  now(): number {
    return steadyNow();
  }
}

/** The production clock for a plain function or class the injector does not build (pass the injected one where there is one). */
export const systemClock: Clock = new SystemClock();

/** Makes one Clock injectable everywhere; tests that drive time override the provider. */
@Global()
@Module({
  exports: [Clock],
  providers: [{ provide: Clock, useClass: SystemClock }],
})
export class ClockModule {}
