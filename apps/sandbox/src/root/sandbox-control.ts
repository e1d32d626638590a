import type { KeyObject } from 'node:crypto';

import type { SandboxConfig } from '../config/sandbox-config.schema.js';
import type { RegisteredExchangeClient } from '../shared/exchange-clients.js';
import type { SandboxFaults } from '../shared/fault-board.js';
import type { SandboxParts } from './sandbox-parts.js';

/**
 * The handle a test (or the process that started the sandbox) holds: every part, and the operator's
 * actions that are also served under `/_sandbox/`. Made by the composition root; no surface sees it.
 */
export class SandboxControl {
  readonly config: SandboxConfig;
  readonly clock: SandboxParts['clock'];
  readonly addresses: SandboxParts['addresses'];
  readonly tokens: SandboxParts['tokens'];
  readonly exchangeClients: SandboxParts['exchangeClients'];
  readonly retailKeys: SandboxParts['retailKeys'];
  readonly engine: SandboxParts['engine'];
  readonly retail: SandboxParts['retail'];
  readonly marketDataStreams: SandboxParts['marketDataStreams'];
  readonly streams: SandboxParts['streams'];
  readonly dropCopy: SandboxParts['dropCopy'];

  constructor(private readonly parts: SandboxParts) {
    this.config = parts.config;
    this.clock = parts.clock;
    this.addresses = parts.addresses;
    this.tokens = parts.tokens;
    this.exchangeClients = parts.exchangeClients;
    this.retailKeys = parts.retailKeys;
    this.engine = parts.engine;
    this.retail = parts.retail;
    this.marketDataStreams = parts.marketDataStreams;
    this.streams = parts.streams;
    this.dropCopy = parts.dropCopy;
  }

  registerExchangeClient(client: Omit<RegisteredExchangeClient, 'publicKeys'>, publicKey: KeyObject): void {
    this.exchangeClients.register(client, publicKey);
  }

  /** Onboards a retail key: its signatures are accepted, and the venue opens its account. */
  registerRetailKey(name: string, keyId: string, publicKey: KeyObject): void {
    this.retailKeys.register(name, keyId, publicKey);
    this.retail.onboard(keyId);
  }

  count(name: string, by = 1): void {
    this.parts.counters.count(name, by);
  }

  counter(name: string): number {
    return this.parts.counters.counter(name);
  }

  counterSnapshot(): Record<string, number> {
    return this.parts.counters.snapshot();
  }

  setFaults(faults: Partial<SandboxFaults>): SandboxFaults {
    return this.parts.faults.set(faults);
  }

  setClockSkew(skewMs: number): void {
    this.clock.skewMs = skewMs;
  }

  /** Every access token issued so far stops working (401), as if the operator revoked them. */
  revokeAccessTokens(): void {
    this.tokens.revokeAll();
  }

  /** Drops every open retail WebSocket (an upstream restart, for reconnect tests); returns how many. */
  dropRetailWebSockets(): number {
    return this.retail.dropConnections();
  }

  /** Ends every open gRPC market-data stream with UNAVAILABLE (an exchange restart); returns how many. */
  endMarketDataStreams(): number {
    return this.marketDataStreams.endAll();
  }

  /** The market-data service stops knowing `symbol` (see MarketDataStreamRegistry.delist); returns how many streams ended. */
  delistMarketData(symbol: string): number {
    return this.marketDataStreams.delist(symbol);
  }

  addExchangeKey(clientId: string, publicKeyPem: string): string {
    return this.exchangeClients.addKey(clientId, publicKeyPem);
  }

  removeExchangeKey(clientId: string, fingerprint: string): void {
    this.exchangeClients.removeKey(clientId, fingerprint);
  }

  exchangeKeyFingerprints(clientId: string): string[] {
    return this.exchangeClients.fingerprints(clientId);
  }
}
