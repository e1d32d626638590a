import type { KeyObject } from 'node:crypto';

import type { UpstreamScope } from '../config/sandbox-config.schema.js';
import { parseRsaPublicKeyPem, publicKeyFingerprint } from '../keys/key-material.js';
import { SurfaceError } from './surface-error.js';

export interface RegisteredExchangeClient {
  clientId: string;
  firm: string;
  users: string[];
  scopes: UpstreamScope[];
  /** More than one during a key rotation (spec §5.1.7). */
  publicKeys: KeyObject[];
}

/** Every participant of a client's firm (`firms/<FIRM>/users/<USER>`). */
export function participantsOf(client: RegisteredExchangeClient): string[] {
  return client.users.map((user) => `firms/${client.firm}/users/${user}`);
}

/** The onboarded exchange clients and their public keys: read by the auth and exchange surfaces, rotated by the operator. */
export class ExchangeClients {
  private readonly clients = new Map<string, RegisteredExchangeClient>();

  register(client: Omit<RegisteredExchangeClient, 'publicKeys'>, publicKey: KeyObject): void {
    this.clients.set(client.clientId, { ...client, publicKeys: [publicKey] });
  }

  get(clientId: string): RegisteredExchangeClient | undefined {
    return this.clients.get(clientId);
  }

  /** The operator registers a client's new public key; old and new both work until one is removed (spec §5.1.7). */
  addKey(clientId: string, publicKeyPem: string): string {
    const client = this.known(clientId);
    const key = parseRsaPublicKeyPem(publicKeyPem);
    if (!key)
      throw new SurfaceError(400, 'publicKeyPem must be a PEM RSA public key of at least 2048 bits', 'invalid_request');
    const fingerprint = publicKeyFingerprint(key);
    if (!client.publicKeys.some((known) => publicKeyFingerprint(known) === fingerprint)) client.publicKeys.push(key);
    return fingerprint;
  }

  removeKey(clientId: string, fingerprint: string): void {
    const client = this.known(clientId);
    const index = client.publicKeys.findIndex((key) => publicKeyFingerprint(key) === fingerprint.toLowerCase());
    if (index < 0) throw new SurfaceError(404, `client ${clientId} has no key ${fingerprint}`, 'not_found');
    client.publicKeys.splice(index, 1);
  }

  fingerprints(clientId: string): string[] {
    return this.known(clientId).publicKeys.map(publicKeyFingerprint);
  }

  private known(clientId: string): RegisteredExchangeClient {
    const client = this.clients.get(clientId);
    if (!client) throw new SurfaceError(404, `unknown exchange client ${clientId}`, 'not_found');
    return client;
  }
}
