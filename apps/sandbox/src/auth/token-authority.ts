import { generateKeyPairSync } from 'node:crypto';

/** What the auth surface signs access tokens with, and the epoch that revokes them all at once. */
export class TokenAuthority {
  /** Made per run; never leaves the process. */
  readonly signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  /** Tokens carry the epoch they were issued in; `revokeAll()` moves it on. */
  epoch = 0;

  constructor(readonly ttlSeconds: number) {}

  /** Every access token issued so far stops working (401), as if the operator revoked them. */
  revokeAll(): void {
    this.epoch++;
  }
}
