import type { KeyObject } from 'node:crypto';

import type { SandboxConfig, UpstreamScope } from '../config/sandbox-config.schema.js';
import { SandboxClock } from './sandbox-clock.js';

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
}

/** What every surface of the sandbox shares: the clock, the onboarded credentials, counters tests read. */
export class SandboxState {
  readonly clock: SandboxClock;
  readonly exchangeClients = new Map<string, RegisteredExchangeClient>();
  readonly retailKeys = new Map<string, RegisteredRetailKey>();
  /** Counts by name (token requests, rejections, ...), for tests and the admin view. */
  readonly counters = new Map<string, number>();

  constructor(readonly config: SandboxConfig) {
    this.clock = new SandboxClock(config.clockSkewMs);
  }

  count(name: string, by = 1): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + by);
  }

  counter(name: string): number {
    return this.counters.get(name) ?? 0;
  }
}

export const SANDBOX_STATE = Symbol('SANDBOX_STATE');
