import { Global, Module } from '@nestjs/common';

/** Injectable time source so tests can move time without sleeping. */
export abstract class Clock {
  abstract now(): number;
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

/** The production clock: steadyNow(), never the stepping wall clock. */
export class SystemClock extends Clock {
  now(): number {
    return steadyNow();
  }
}

/** Makes one Clock injectable everywhere; tests that drive time override the provider. */
@Global()
@Module({
  exports: [Clock],
  providers: [{ provide: Clock, useClass: SystemClock }],
})
export class ClockModule {}
