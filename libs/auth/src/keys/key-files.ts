import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import { type CryptoKey, importPKCS8 } from 'jose';

import { KeyFileError } from './key-load.error.js';

/** jose's RS256 refuses shorter moduli at signing time; finding out at start is kinder. */
const MIN_RSA_BITS = 2048;
/** RFC 8410: PKCS#8 DER of an Ed25519 private key is this prefix followed by the 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export interface RsaPrivateKey {
  /** What jose signs with (RS256). */
  readonly signingKey: CryptoKey;
  /** SHA-256 of the public key (SPKI), shortened: safe to log, shows an operator which key is live. */
  readonly fingerprint: string;
}

export interface Ed25519PrivateKey {
  /** RFC 8032 seed (32 bytes). */
  readonly seed: Uint8Array;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly fingerprint: string;
}

/** Reads a key file; the error says which file and why (missing, unreadable), never what it held. */
export async function readKeyFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem =
      code === 'ENOENT'
        ? 'file not found'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a directory'
            : `cannot read (${code ?? 'unknown error'})`;
    throw new KeyFileError(file, problem);
  }
}

/** The opening line of a PEM block of this label (RFC 7468), e.g. `pemBegin('PRIVATE KEY')`. */
export const pemBegin = (label: string) => `-----BEGIN ${label}-----`;

/** An RSA private key in PEM: a PKCS#8 block, or a PKCS#1 (RSA) block, converted. */
export async function parseRsaPrivateKey(file: string, pem: string): Promise<RsaPrivateKey> {
  if (pem.includes(pemBegin('ENCRYPTED PRIVATE KEY')))
    throw new KeyFileError(file, 'encrypted private keys are not supported');
  const pkcs1 = pem.includes(pemBegin('RSA PRIVATE KEY'));
  if (!pkcs1 && !pem.includes(pemBegin('PRIVATE KEY')))
    throw new KeyFileError(file, 'not a PEM private key (expected a PKCS#8 or PKCS#1 RSA block)');
  let keyObject: KeyObject;
  try {
    keyObject = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    // OpenSSL's message is not shown: it says nothing more useful and must not risk echoing content.
    throw new KeyFileError(file, 'the PEM block does not decode to a private key');
  }
  if (keyObject.asymmetricKeyType !== 'rsa')
    throw new KeyFileError(file, `expected an RSA key, found ${keyObject.asymmetricKeyType ?? 'an unknown type'}`);
  const bits = keyObject.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS) throw new KeyFileError(file, `RSA modulus of ${bits} bits is shorter than ${MIN_RSA_BITS}`);
  const pkcs8 = pkcs1 ? (keyObject.export({ type: 'pkcs8', format: 'pem' }) as string) : pem;
  let signingKey: CryptoKey;
  try {
    signingKey = await importPKCS8(pkcs8, 'RS256');
  } catch {
    throw new KeyFileError(file, 'not usable as an RS256 signing key');
  }
  return { signingKey, fingerprint: fingerprintOf(createPublicKey(keyObject)) };
}

/** Base64 of a 32-byte Ed25519 seed or the 64-byte seed‖public-key form (upstream-facts: retail signing). */
export function parseEd25519Secret(file: string, text: string): Ed25519PrivateKey {
  const encoded = text.trim();
  if (encoded === '') throw new KeyFileError(file, 'file is empty');
  if (!BASE64.test(encoded)) throw new KeyFileError(file, 'not base64 (standard alphabet)');
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length !== 32 && bytes.length !== 64)
    throw new KeyFileError(file, `decodes to ${bytes.length} bytes, expected 32 or 64`);
  const seed = new Uint8Array(bytes.subarray(0, 32));
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey);
  // In the 64-byte form the second half is the public key: a mismatch means a damaged or mixed-up file.
  if (bytes.length === 64 && !bytes.subarray(32).equals(rawEd25519PublicKey(publicKey)))
    throw new KeyFileError(file, 'the last 32 bytes are not the public key of the first 32');
  bytes.fill(0);
  return { seed, privateKey, publicKey, fingerprint: fingerprintOf(publicKey) };
}

export function rawEd25519PublicKey(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  return spki.subarray(spki.length - 32);
}

function fingerprintOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
}
