import type { KeyObject } from 'node:crypto';

import { publicKeyFingerprint } from '../keys/key-material.js';

export interface RegisteredRetailKey {
  name: string;
  keyId: string;
  publicKey: KeyObject;
  fingerprint: string;
}

/** The onboarded retail API keys (Ed25519 public keys by key id). */
export class RetailKeys {
  private readonly keys = new Map<string, RegisteredRetailKey>();

  register(name: string, keyId: string, publicKey: KeyObject): void {
    this.keys.set(keyId, { name, keyId, publicKey, fingerprint: publicKeyFingerprint(publicKey) });
  }

  get(keyId: string): RegisteredRetailKey | undefined {
    return this.keys.get(keyId);
  }
}
