import { Logger } from '@nestjs/common';
import { offsetFromDate, type MetricsRegistry } from '@lib/core';
import { Gauge } from 'prom-client';

/** A `Date` header has one-second resolution: smaller disagreements are measurement noise, not skew. */
const ADJUST_THRESHOLD_MS = 1_000;
/** spec §5.2: 30 s window. A correction under half of it cannot explain a rejected timestamp. */
const RESEND_THRESHOLD_MS = 15_000;

/** What a ServerClockOffset reports: the metric and the server named in its log lines. */
export interface ServerClockNaming {
  metric: string;
  server: string;
}

const RETAIL: ServerClockNaming = { metric: 'gateway_retail_server_clock_offset_seconds', server: 'retail server' };

/**
 * A server's clock relative to ours (SystemClock: steady, never stepped), learned from the `Date`
 * headers of its responses, so signed timestamps (retail: 30 s window) and assertion `iat`s (exchange
 * auth server) stay inside what the server accepts even when the local clock is wrong or steps.
 */
export class ServerClockOffset {
  private readonly logger = new Logger(ServerClockOffset.name);
  private readonly gauge: Gauge;
  private offset = 0;
  private warned = false;

  constructor(
    private readonly warnMs: number,
    registry: MetricsRegistry,
    private readonly naming: ServerClockNaming = RETAIL,
  ) {
    this.gauge = new Gauge({
      name: naming.metric,
      help: `The ${naming.server}'s clock minus the local clock, as learned from response Date headers`,
      registers: [registry],
    });
    this.gauge.set(0);
  }

  get offsetMs(): number {
    return this.offset;
  }

  /**
   * Learns from one response (offsetFromDate). Returns how far the offset moved (0 when the sample
   * agrees with it within its own uncertainty).
   */
  observe(dateHeader: string | undefined, sentAtMs: number, receivedAtMs: number): number {
    const measured = offsetFromDate(dateHeader, sentAtMs, receivedAtMs);
    if (measured === undefined) return 0;
    const change = measured - this.offset;
    // A slow round trip widens the uncertainty of the sample by half its duration.
    if (Math.abs(change) <= ADJUST_THRESHOLD_MS + (receivedAtMs - sentAtMs) / 2) return 0;
    this.offset = measured;
    this.gauge.set(measured / 1000);
    this.report();
    return change;
  }

  /** After a 401: true when the offset moved enough that the rejected timestamp may have been the cause. */
  observeUnauthorized(dateHeader: string | undefined, sentAtMs: number, receivedAtMs: number): boolean {
    return Math.abs(this.observe(dateHeader, sentAtMs, receivedAtMs)) >= RESEND_THRESHOLD_MS;
  }

  private report(): void {
    const beyond = Math.abs(this.offset) > this.warnMs;
    if (beyond && !this.warned) {
      this.logger.warn(
        `The ${this.naming.server} clock differs from ours by ${this.offset} ms (over ${this.warnMs} ms); signed times are corrected, but check NTP`,
      );
    } else if (!beyond && this.warned) {
      this.logger.log(`The ${this.naming.server} clock is back within ${this.warnMs} ms of ours (${this.offset} ms)`);
    } else {
      this.logger.debug(`The ${this.naming.server} clock offset is now ${this.offset} ms`);
    }
    this.warned = beyond;
  }
}
