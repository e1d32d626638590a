import { createHash, sign } from 'node:crypto';

import { hashes, sign as nobleSign } from '@noble/ed25519';

import type { Ed25519PrivateKey } from '../keys/key-files.js';

/** Signs a message (RFC 8032 pure Ed25519, deterministic) and returns the 64-byte signature. */
export type Ed25519Sign = (key: Ed25519PrivateKey, message: Uint8Array) => Uint8Array;

/** OpenSSL through node:crypto, with the key object parsed once at load. */
export const signWithNodeCrypto: Ed25519Sign = (key, message) => sign(null, message, key.privateKey);

/**
 * @noble/ed25519 from the seed. Kept as the reference the tests and the bench compare against: it
 * recomputes the public key on every call, which makes it several times slower than OpenSSL.
 */
export const signWithNoble: Ed25519Sign = (key, message) => {
  // noble v3 needs a synchronous SHA-512 for `sign`; node:crypto has one, so @noble/hashes is not needed.
  hashes.sha512 ??= (data) => new Uint8Array(createHash('sha512').update(data).digest());
  return nobleSign(message, key.seed);
};
