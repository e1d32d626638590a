import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import {
  Clock,
  DomainError,
  ErrorCode,
  fullJitterDelay,
  GATEWAY_CONFIG,
  MetricsRegistry,
  Readiness,
  type ReadinessReport,
  SystemClock,
  UpstreamHttp,
} from '@lib/core';

import { EnvironmentBinding } from '../environment/environment-binding.js';
import { KeyStore } from '../keys/key-store.service.js';
import { ServerClockOffset } from '../retail-signing/server-clock.js';
import { buildClientAssertion } from './client-assertion.js';
import { type TokenFailureReason, TokenEndpoint, type TokenGrant, TokenRequestError } from './token-endpoint.js';
import { TokenMetrics } from './token-metrics.js';
import type { AuthConfigView, ExchangeTokenSettings } from '../config/auth.config.js';

/** Node runs a longer timeout at once; refresh timers are clamped below it. */
const MAX_TIMER_MS = 2_147_483_647;

interface CachedToken {
  /** The whole header value, built once: the per-request path only returns it. */
  readonly header: string;
  readonly obtainedAt: number;
  readonly refreshAt: number;
  readonly expiresAt: number;
}

/** Secret-free state of the exchange token, for readiness and the admin view. */
export interface ExchangeTokenStatus {
  hasToken: boolean;
  tokenAgeSeconds: number | null;
  expiresInSeconds: number | null;
  refreshCount: number;
  failureCount: number;
  lastError: TokenFailureReason | null;
}

/**
 * The exchange bearer token (spec §5.1) of the running environment: obtained with an RS256 client
 * assertion, cached in memory, refreshed ahead of expiry by a timer and lazily, one request at a time
 * however many callers wait. When the auth server fails it keeps serving the current token until that
 * really lapses, then fails fast while retries with backoff continue in the background.
 */
@Injectable()
export class ExchangeTokenProvider implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ExchangeTokenProvider.name);
  private readonly settings: ExchangeTokenSettings;
  private readonly endpoint: TokenEndpoint;
  private readonly metrics: TokenMetrics;
  private token: CachedToken | undefined;
  private flight: Promise<CachedToken> | undefined;
  private consecutiveFailures = 0;
  private refreshCount = 0;
  private failureCount = 0;
  private lastError: TokenFailureReason | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryAt = 0;
  private closed = false;
  private readonly clock: Clock;
  /** The auth server's clock, learned from its answers: an assertion's `iat` and `exp` are its time, not ours. */
  private readonly authClock: ServerClockOffset;

  constructor(
    @Inject(GATEWAY_CONFIG) config: Pick<AuthConfigView, 'exchange' | 'retail'>,
    private readonly binding: EnvironmentBinding,
    private readonly keys: KeyStore,
    http: UpstreamHttp,
    registry: MetricsRegistry,
    readiness: Readiness,
    // Optional like in libs/ratelimit: a Clock provided only in the app's root module is not visible here.
    @Optional() clock?: Clock,
  ) {
    this.clock = clock ?? new SystemClock();
    this.settings = config.exchange;
    this.authClock = new ServerClockOffset(config.retail.clockSkewWarnMs, registry, {
      metric: 'gateway_exchange_auth_clock_offset_seconds',
      server: 'exchange auth server',
    });
    this.endpoint = new TokenEndpoint(
      http,
      binding.tokenUrl,
      binding.environment.exchangeUrl,
      config.exchange.tokenTimeoutMs,
    );
    this.metrics = new TokenMetrics(registry, () => {
      const status = this.status();
      return {
        ageSeconds: status.tokenAgeSeconds ?? undefined,
        expiresInSeconds: status.expiresInSeconds ?? undefined,
      };
    });
    if (this.configured) readiness.register('exchange-token', () => this.readiness());
  }

  /** Whether the running environment has an exchange client at all (retail-only deployments do not). */
  get configured(): boolean {
    return this.binding.environment.exchangeClient !== undefined;
  }

  /** Fetches the first token in the background, so the first request does not wait for it. */
  onApplicationBootstrap(): void {
    if (this.configured) this.refreshInBackground();
  }

  onApplicationShutdown(): void {
    this.closed = true;
    clearTimeout(this.refreshTimer);
    clearTimeout(this.retryTimer);
  }

  /**
   * `Bearer <token>` for a request to `target` (an exchange REST URL or the gRPC target); refuses any
   * other address. Throws DomainError UPSTREAM_AUTH_UNAVAILABLE when no valid token can be had.
   */
  async authorization(target: string): Promise<string> {
    this.binding.assertExchangeTarget(target);
    const token = this.token;
    if (token !== undefined) {
      const now = this.clock.now();
      if (now < token.refreshAt) return token.header;
      if (now < token.expiresAt) {
        this.refreshInBackground();
        return token.header;
      }
    }
    return this.freshToken();
  }

  /**
   * The upstream answered 401 to a request that carried `authorization`: forget that token if it is
   * still the current one, so the caller's one resend waits for a new token (one request for all).
   */
  rejected(authorization: string): void {
    if (this.token === undefined || this.token.header !== authorization) return;
    this.token = undefined;
    clearTimeout(this.refreshTimer);
    this.logger.warn('The exchange refused the current access token; a new one will be requested');
  }

  status(): ExchangeTokenStatus {
    const token = this.token;
    const now = this.clock.now();
    return {
      hasToken: token !== undefined && now < token.expiresAt,
      tokenAgeSeconds: token ? (now - token.obtainedAt) / 1000 : null,
      expiresInSeconds: token ? Math.max(0, token.expiresAt - now) / 1000 : null,
      refreshCount: this.refreshCount,
      failureCount: this.failureCount,
      lastError: this.lastError ?? null,
    };
  }

  private readiness(): ReadinessReport {
    const details = this.status();
    const status = !details.hasToken ? 'down' : this.consecutiveFailures > 0 ? 'degraded' : 'up';
    return { status, details: { ...details } };
  }

  /** No usable token: wait for one, unless the auth server is failing, in which case do not wait at all. */
  private async freshToken(): Promise<string> {
    if (!this.configured) throw this.unavailable();
    if (this.consecutiveFailures > 0) {
      this.ensureRetry();
      throw this.unavailable();
    }
    try {
      return (await this.refresh()).header;
    } catch {
      throw this.unavailable();
    }
  }

  /** Single flight: every caller during a token request shares its promise. */
  private refresh(): Promise<CachedToken> {
    this.flight ??= this.obtain().finally(() => {
      this.flight = undefined;
    });
    return this.flight;
  }

  /** Starts a refresh unless one is running or a backoff delay is pending (retries keep their pace). */
  private refreshInBackground(): void {
    if (this.flight !== undefined || this.retryTimer !== undefined || this.closed) return;
    this.refresh().catch(() => undefined);
  }

  private async obtain(): Promise<CachedToken> {
    let sentAt = this.clock.now();
    try {
      let grant: TokenGrant;
      try {
        grant = await this.requestGrant(sentAt);
      } catch (error) {
        // Refused while the auth server's clock turned out to be elsewhere than assumed (its iat_in_future,
        // or an assertion already expired by its clock): once more, at once, dated by its clock.
        if (!(error instanceof TokenRequestError) || !this.clockWasWrong(error, sentAt)) throw error;
        sentAt = this.clock.now();
        grant = await this.requestGrant(sentAt);
      }
      this.authClock.observe(grant.date, sentAt, this.clock.now());
      return this.accept(grant, sentAt);
    } catch (error) {
      const failure = error instanceof TokenRequestError ? error : new TokenRequestError('network');
      this.fail(failure);
      throw failure;
    }
  }

  /** Learns the auth server's clock from a refusal; true when it moved enough to explain an assertion refused for its times. */
  private clockWasWrong(error: TokenRequestError, sentAt: number): boolean {
    const moved = this.authClock.observe(error.date, sentAt, this.clock.now());
    return moved !== 0 && (error.reason === 'invalid_client_assertion' || error.reason === 'invalid_client');
  }

  /** `nowMs`: our clock when the request leaves; the assertion is dated by the auth server's. */
  private async requestGrant(nowMs: number): Promise<TokenGrant> {
    // Read the key per request: a rotation applies to the next assertion, never to one half-built.
    const credential = this.keys.exchange();
    if (credential === undefined) throw new TokenRequestError('no_key');
    let assertion: string;
    try {
      assertion = await buildClientAssertion({
        clientId: credential.clientId,
        tokenUrl: this.binding.tokenUrl,
        signingKey: credential.key.signingKey,
        nowMs: nowMs + this.authClock.offsetMs,
        lifetimeSeconds: this.settings.assertionLifetimeSeconds,
      });
    } catch {
      throw new TokenRequestError('signing');
    }
    return this.endpoint.request(credential.clientId, assertion);
  }

  private accept(grant: TokenGrant, sentAt: number): CachedToken {
    const lifetimeMs = grant.expiresInSeconds * 1000;
    // spec §5.1.3: about 30 s early; a short-lived token is renewed a third of its life early instead.
    const leadMs = Math.min(this.settings.refreshEarlySeconds * 1000, lifetimeMs / 3);
    // Lifetimes count from when the request left, so the cached expiry is never later than the server's.
    const token: CachedToken = {
      header: `Bearer ${grant.accessToken}`,
      obtainedAt: sentAt,
      refreshAt: sentAt + lifetimeMs - leadMs,
      expiresAt: sentAt + lifetimeMs,
    };
    const recovered = this.consecutiveFailures > 0;
    this.token = token;
    this.consecutiveFailures = 0;
    this.lastError = undefined;
    this.refreshCount += 1;
    this.metrics.refreshed();
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.scheduleRefresh(token);
    if (recovered)
      this.logger.log(`Exchange token obtained again after failures; valid for ${grant.expiresInSeconds} s`);
    return token;
  }

  private fail(error: TokenRequestError): void {
    this.consecutiveFailures += 1;
    this.failureCount += 1;
    this.lastError = error.reason;
    this.metrics.failed(error.reason);
    const delay = this.scheduleRetry();
    const remaining = this.token ? this.token.expiresAt - this.clock.now() : 0;
    const http = error.status === undefined ? '' : `, HTTP ${error.status}`;
    const tail = `attempt ${this.consecutiveFailures}; next try in ${delay} ms`;
    if (remaining > 0)
      this.logger.warn(
        `Exchange token request failed (${error.reason}${http}), ${tail}; the current token stays valid for ${Math.round(remaining / 1000)} s`,
      );
    else
      this.logger.error(
        `Exchange token request failed (${error.reason}${http}), ${tail}; exchange requests fail until a token is obtained`,
      );
  }

  private scheduleRefresh(token: CachedToken): void {
    clearTimeout(this.refreshTimer);
    if (this.closed) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, token.refreshAt - this.clock.now()));
    this.refreshTimer = setTimeout(() => this.refreshInBackground(), delay);
    this.refreshTimer.unref();
  }

  private scheduleRetry(): number {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.closed) return 0;
    const delay = fullJitterDelay(
      this.consecutiveFailures,
      this.settings.refreshBackoffInitialMs,
      this.settings.refreshBackoffMaxMs,
    );
    this.retryAt = this.clock.now() + delay;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.refreshInBackground();
    }, delay);
    this.retryTimer.unref();
    return delay;
  }

  /** Defensive: in the failing state a retry must always be pending, or nothing would ever recover. */
  private ensureRetry(): void {
    if (this.flight === undefined && this.retryTimer === undefined) this.scheduleRetry();
  }

  private unavailable(): DomainError {
    if (!this.configured)
      return new DomainError(
        ErrorCode.UPSTREAM_AUTH_UNAVAILABLE,
        `No exchange client is configured for the ${this.binding.name} environment.`,
      );
    const retryAfter = Math.max(1, Math.ceil((this.retryAt - this.clock.now()) / 1000));
    const reason = this.lastError ? ` (last token request: ${this.lastError})` : '';
    return new DomainError(
      ErrorCode.UPSTREAM_AUTH_UNAVAILABLE,
      `No valid exchange access token is available${reason}.`,
      {
        headers: { 'Retry-After': String(retryAfter) },
      },
    );
  }
}
