import { generateKeyPairSync, type KeyObject } from 'node:crypto';

import type { SandboxConfig, UpstreamScope } from '../config/sandbox-config.schema.js';
import { parseRsaPublicKeyPem, publicKeyFingerprint } from '../keys/key-material.js';
import { SandboxClock } from './sandbox-clock.js';
import { SurfaceError } from './surface-error.js';
import { MatchingEngine, binaryContract, instrumentsFixture } from '../engine/index.js';
import { DropCopyLog } from '../exchange/grpc/dropcopy/drop-copy-log.js';
import type { DeliveryFaults } from '../exchange/grpc/dropcopy/log-stream.js';
import { MarketDataStreamRegistry } from '../exchange/grpc/market-data-stream.registry.js';
import { StreamPool } from '../exchange/grpc/stream-pool.js';
import { RetailVenue } from '../retail/retail-venue.js';

export interface SandboxUrls {
  auth: string;
  exchange: string;
  /** host:port of the gRPC server (plaintext). */
  grpc: string;
  retail: string;
  catalog: string;
}

export interface RegisteredExchangeClient {
  clientId: string;
  firm: string;
  users: string[];
  scopes: UpstreamScope[];
  /** More than one during a key rotation (spec §5.1.7). */
  publicKeys: KeyObject[];
}

export interface RegisteredRetailKey {
  name: string;
  keyId: string;
  publicKey: KeyObject;
  fingerprint: string;
}

export interface SandboxFaults {
  /** `/oauth/token` drops the connection without an answer: an unreachable auth server (spec §7). */
  authDown: boolean;
  /** Exchange operations (by the name counted in `exchange.calls.<name>`) held this long before they run: a slow upstream. */
  exchangeDelayMs?: Record<string, number>;
  /** Every catalog route answers 503: an unreachable catalog gateway, for stale-if-error. Unset: off. */
  catalogDown?: boolean;
  /** Every catalog answer is held this long: a slow upstream, so concurrent misses overlap. Unset: 0. */
  catalogLatencyMs?: number;
  /** The next N exchange new orders / cancel-replaces get "Global Rate Limit Exceeded" (see latency-reject.ts). Unset: 0. */
  latencyRejectNext?: number;
  /** Exchange operations (by name) whose answer is lost after they ran: see AnswerFault. */
  exchangeAnswerFaults?: Record<string, AnswerFault>;
}

/**
 * Faults after an operation ran (the order exists): of every `every` calls, the first `drop` lose
 * their connection without an answer and the next `hold` answer `holdMs` late (past the client's
 * timeout). `every: 20, drop: 2, hold: 1` drops 10 % and holds 5 %.
 */
export interface AnswerFault {
  every: number;
  drop: number;
  hold: number;
  holdMs: number;
}

/** What every surface of the sandbox shares: the clock, the onboarded credentials, account stores, counters. */
export class SandboxState {
  readonly clock: SandboxClock;
  readonly exchangeClients = new Map<string, RegisteredExchangeClient>();
  readonly retailKeys = new Map<string, RegisteredRetailKey>();
  /** Counts by name (token requests, rejections, ...), for tests and the admin view. */
  readonly counters = new Map<string, number>();
  readonly faults: SandboxFaults = { authDown: false };
  /** Signs the access tokens the auth surface issues; made per run and never leaves the process. */
  readonly tokenSigningKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  /** Tokens carry the epoch they were issued in; `revokeAccessTokens()` moves it on. */
  tokenEpoch = 0;
  private knownUrls?: SandboxUrls;

  /** One engine for the whole sandbox: exchange, retail and catalog books are the same books. */
  readonly engine: MatchingEngine;
  /** Retail orders' terms, deposits, limits and channels; cash and positions are the engine's. */
  readonly retail: RetailVenue;
  /** Open gRPC market-data streams, their heartbeat interval and counters. */
  readonly marketDataStreams: MarketDataStreamRegistry;
  /** Every open gRPC stream of every service: the firm's pooled budget and its ingress. */
  readonly streams: StreamPool;
  /** The retained log drop copy replays, delivery faults, and the heartbeat of order and drop-copy streams. */
  readonly dropCopy: { log: DropCopyLog; faults: DeliveryFaults; heartbeatMs: number };

  constructor(readonly config: SandboxConfig) {
    this.clock = new SandboxClock(config.clockSkewMs);
    this.engine = new MatchingEngine({ clock: () => this.clock.now(), instruments: [...instrumentsFixture(), ...config.exchange.extraGames.map(binaryContract)] });
    this.retail = new RetailVenue(this.engine, () => this.clock.now());
    this.marketDataStreams = new MarketDataStreamRegistry(this.engine, (name, by) => this.count(name, by), () => this.clock.now());
    this.streams = new StreamPool(config.grpc, (name, by) => this.count(name, by), () => this.clock.now());
    const log = new DropCopyLog(this.engine, config.grpc.dropCopyRetention);
    this.dropCopy = { log, faults: { delayMs: 0, duplicate: false }, heartbeatMs: config.grpc.heartbeatMs };
  }

  /** The surfaces' own addresses (token audience, assertion `aud`); known once every surface listens. */
  get urls(): SandboxUrls {
    if (!this.knownUrls) throw new SurfaceError(503, 'the sandbox is still starting');
    return this.knownUrls;
  }

  setUrls(urls: SandboxUrls): void {
    this.knownUrls = urls;
  }

  registerExchangeClient(client: Omit<RegisteredExchangeClient, 'publicKeys'>, publicKey: KeyObject): void {
    this.exchangeClients.set(client.clientId, { ...client, publicKeys: [publicKey] });
  }

  registerRetailKey(name: string, keyId: string, publicKey: KeyObject): void {
    this.retailKeys.set(keyId, { name, keyId, publicKey, fingerprint: publicKeyFingerprint(publicKey) });
    this.retail.onboard(keyId);
  }

  participantsOf(client: RegisteredExchangeClient): string[] {
    return client.users.map((user) => `firms/${client.firm}/users/${user}`);
  }

  count(name: string, by = 1): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + by);
  }

  counter(name: string): number {
    return this.counters.get(name) ?? 0;
  }

  // Operator actions, also served under /_sandbox/ on the auth surface.

  /** Every access token issued so far stops working (401), as if the operator revoked them. */
  revokeAccessTokens(): void {
    this.tokenEpoch++;
  }

  /** Drops every open retail WebSocket (an upstream restart, for reconnect tests); returns how many. */
  dropRetailWebSockets(): number {
    return this.retail.dropConnections();
  }

  /** Ends every open gRPC market-data stream with UNAVAILABLE (an exchange restart); returns how many. */
  endMarketDataStreams(): number {
    return this.marketDataStreams.endAll();
  }

  setClockSkew(skewMs: number): void {
    this.clock.skewMs = skewMs;
  }

  /** The operator registers a client's new public key; old and new both work until one is removed (spec §5.1.7). */
  addExchangeKey(clientId: string, publicKeyPem: string): string {
    const client = this.exchangeClient(clientId);
    const key = parseRsaPublicKeyPem(publicKeyPem);
    if (!key) throw new SurfaceError(400, 'publicKeyPem must be a PEM RSA public key of at least 2048 bits', 'invalid_request');
    const fingerprint = publicKeyFingerprint(key);
    if (!client.publicKeys.some((known) => publicKeyFingerprint(known) === fingerprint)) client.publicKeys.push(key);
    return fingerprint;
  }

  removeExchangeKey(clientId: string, fingerprint: string): void {
    const client = this.exchangeClient(clientId);
    const index = client.publicKeys.findIndex((key) => publicKeyFingerprint(key) === fingerprint.toLowerCase());
    if (index < 0) throw new SurfaceError(404, `client ${clientId} has no key ${fingerprint}`, 'not_found');
    client.publicKeys.splice(index, 1);
  }

  exchangeKeyFingerprints(clientId: string): string[] {
    return this.exchangeClient(clientId).publicKeys.map(publicKeyFingerprint);
  }

  setFaults(faults: Partial<SandboxFaults>): SandboxFaults {
    Object.assign(this.faults, faults);
    return { ...this.faults };
  }

  counterSnapshot(): Record<string, number> {
    return Object.fromEntries(this.counters);
  }

  private exchangeClient(clientId: string): RegisteredExchangeClient {
    const client = this.exchangeClients.get(clientId);
    if (!client) throw new SurfaceError(404, `unknown exchange client ${clientId}`, 'not_found');
    return client;
  }
}

export const SANDBOX_STATE = Symbol('SANDBOX_STATE');
