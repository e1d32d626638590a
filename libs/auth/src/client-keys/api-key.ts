import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_PREFIX = 'pmgw_';

/** A fresh internal API key: a recognisable prefix (so leaks are easy to scan for) and 256 random bits. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** The form stored in config: `sha256:<hex>`. The key itself is never stored. */
export function hashApiKey(key: string): string {
  return 'sha256:' + createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface KeyedIdentity {
  keyHash: string;
}

/**
 * Finds the identity a presented key belongs to. The key is hashed first, so the lookup only ever
 * sees a digest; the final comparison of digests is constant-time.
 */
export class ApiKeyVerifier<T extends KeyedIdentity> {
  private readonly byHash: Map<string, { identity: T; digest: Buffer }>;

  constructor(identities: readonly T[]) {
    this.byHash = new Map(identities.map((identity) => [identity.keyHash, { identity, digest: Buffer.from(identity.keyHash.slice(7), 'hex') }]));
  }

  verify(presented: string): T | undefined {
    if (presented.length < 16 || presented.length > 256) return undefined;
    const hash = hashApiKey(presented);
    const entry = this.byHash.get(hash);
    if (!entry) return undefined;
    return timingSafeEqual(entry.digest, Buffer.from(hash.slice(7), 'hex')) ? entry.identity : undefined;
  }
}
