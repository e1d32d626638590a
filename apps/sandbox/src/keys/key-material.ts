import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The sandbox plays the operator's onboarding: it makes (or reuses) each client's key pair,
 * registers the public half with itself and hands the private half to the gateway as a file.
 * Written with node:crypto only, independently of the gateway's key loading.
 */
export interface ExchangeClientKey {
  clientId: string;
  privateKeyFile: string;
  publicKey: KeyObject;
}

export interface RetailKey {
  name: string;
  keyId: string;
  secretKeyFile: string;
  publicKey: KeyObject;
}

export function exchangeKeyFile(keyDir: string, clientId: string): string {
  return join(keyDir, `exchange-${clientId}.pem`);
}

export function retailKeyFile(keyDir: string, name: string): string {
  return join(keyDir, `retail-${name}.key`);
}

export function provisionExchangeKey(keyDir: string, clientId: string): ExchangeClientKey {
  const file = exchangeKeyFile(keyDir, clientId);
  let pem: string;
  if (existsSync(file)) {
    pem = readFileSync(file, 'utf8');
  } else {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    writeSecret(keyDir, file, pem);
  }
  return { clientId, privateKeyFile: file, publicKey: createPublicKey(createPrivateKey(pem)) };
}

/** Retail secrets are issued as base64 of the 32-byte Ed25519 seed (upstream-facts: 32 or 64 bytes). */
export function provisionRetailKey(keyDir: string, name: string, keyId: string): RetailKey {
  const file = retailKeyFile(keyDir, name);
  let seed: Buffer;
  if (existsSync(file)) {
    seed = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').subarray(0, 32);
  } else {
    const { privateKey } = generateKeyPairSync('ed25519');
    seed = ed25519Seed(privateKey);
    writeSecret(keyDir, file, seed.toString('base64') + '\n');
  }
  return { name, keyId, secretKeyFile: file, publicKey: ed25519PublicFromSeed(seed) };
}

/** PKCS#8 DER of an Ed25519 key ends with the 32-byte seed. */
export function ed25519Seed(privateKey: KeyObject): Buffer {
  const der = privateKey.export({ type: 'pkcs8', format: 'der' });
  return Buffer.from(der.subarray(der.length - 32));
}

const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function ed25519PublicFromSeed(seed: Buffer): KeyObject {
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  return createPublicKey(privateKey);
}

/** SHA-256 of the key's SubjectPublicKeyInfo DER, hex: how the operator names a key (rotation, counters). */
export function publicKeyFingerprint(key: KeyObject): string {
  return createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

const MIN_RSA_BITS = 2048;

/** An RSA public key from PEM, or undefined; private-key PEMs are refused rather than quietly reduced to their public half. */
export function parseRsaPublicKeyPem(pem: string): KeyObject | undefined {
  if (pem.includes('PRIVATE KEY')) return undefined;
  try {
    const key = createPublicKey({ key: pem, format: 'pem' });
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    return key.asymmetricKeyType === 'rsa' && bits >= MIN_RSA_BITS ? key : undefined;
  } catch {
    return undefined;
  }
}

function writeSecret(dir: string, file: string, content: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(file, content, { mode: 0o600 });
}
