import { Inject, Injectable, Optional } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, MetricsRegistry, SystemClock } from '@lib/core';

import { EnvironmentBinding } from '../environment/environment-binding.js';
import { KeyStore } from '../keys/key-store.service.js';
import { signWithNodeCrypto } from './ed25519.js';
import { ServerClockOffset } from './server-clock.js';
import type { AuthConfigView } from '../config/auth.config.js';

/** The three headers of spec §5.2. */
export type RetailAuthHeaders = Record<'X-PM-Access-Key' | 'X-PM-Timestamp' | 'X-PM-Signature', string>;

/**
 * Signs retail requests (spec §5.2, layout from upstream-facts): Ed25519 over the UTF-8 of
 * `<timestamp ms><METHOD><pathname>`, no separators, query string not signed. WebSocket upgrades are
 * signed as GET of the channel path. Timestamps are local time plus the learned server offset.
 */
@Injectable()
export class RetailSigner {
  private readonly offset: ServerClockOffset;
  private readonly clock: Clock;

  constructor(
    @Inject(GATEWAY_CONFIG) config: Pick<AuthConfigView, 'retail'>,
    private readonly binding: EnvironmentBinding,
    private readonly keys: KeyStore,
    registry: MetricsRegistry,
    // Optional like in libs/ratelimit: a Clock provided only in the app's root module is not visible here.
    @Optional() clock?: Clock,
  ) {
    this.clock = clock ?? new SystemClock();
    this.offset = new ServerClockOffset(config.retail.clockSkewWarnMs, registry);
  }

  /** Headers for one request of `account` to `url` (the retail origin over http(s) or ws(s) only). */
  sign(account: string, method: string, url: string): RetailAuthHeaders {
    const pathStart = this.binding.assertRetailTarget(url);
    const credential = this.keys.retail(account);
    if (credential === undefined)
      throw new DomainError(
        ErrorCode.FORBIDDEN,
        `No retail account named "${account}" in the ${this.binding.name} environment.`,
      );
    const timestamp = String(Math.round(this.clock.now() + this.offset.offsetMs));
    const message = Buffer.from(timestamp + method.toUpperCase() + pathnameOf(url, pathStart), 'utf8');
    // node:crypto rather than @noble/ed25519: byte-identical signatures, about ten times the rate (bench/auth.bench.ts).
    const signature = signWithNodeCrypto(credential.key, message);
    return {
      'X-PM-Access-Key': credential.keyId,
      'X-PM-Timestamp': timestamp,
      'X-PM-Signature': Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength).toString('base64'),
    };
  }

  accountNames(): string[] {
    return [...this.keys.current.retail.keys()];
  }

  hasAccount(name: string): boolean {
    return this.keys.current.retail.has(name);
  }

  /** Retail server clock minus local clock, in ms. */
  get serverOffsetMs(): number {
    return this.offset.offsetMs;
  }

  /** Feed every retail response's `Date` header here, with the local times the request left and the answer came. */
  observeServerDate(dateHeader: string | undefined, sentAtMs: number, receivedAtMs: number): void {
    this.offset.observe(dateHeader, sentAtMs, receivedAtMs);
  }

  /**
   * For a 401: learns from its `Date` header and says whether the offset moved enough that the
   * timestamp may have been why it was refused, so one resend with a new signature is worth it.
   */
  observeUnauthorized(dateHeader: string | undefined, sentAtMs: number, receivedAtMs: number): boolean {
    return this.offset.observeUnauthorized(dateHeader, sentAtMs, receivedAtMs);
  }
}

/** The path as sent on the wire, from where the origin ends up to the query or fragment. */
function pathnameOf(url: string, start: number): string {
  let end = url.length;
  for (let i = start; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 63 /* ? */ || c === 35 /* # */) {
      end = i;
      break;
    }
  }
  return end > start ? url.slice(start, end) : '/';
}
