import { createPrivateKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { fakePemBlock, newEd25519Secret, newRsaPem } from '../testing/auth.fixtures.js';
import { parseEd25519Secret, parseRsaPrivateKey, pemBegin, readKeyFile } from './key-files.js';
import { KeyFileError } from './key-load.error.js';

const FILE = '/keys/exchange.pem';

async function problemOf(work: () => Promise<unknown> | unknown): Promise<KeyFileError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof KeyFileError) return error;
    throw error;
  }
  throw new Error('expected a KeyFileError');
}

describe(parseRsaPrivateKey.name, () => {
  const pkcs8 = newRsaPem('pkcs8');

  it('loads a PKCS#8 PEM for RS256', async () => {
    const sut = await parseRsaPrivateKey(FILE, pkcs8.pem);
    expect(sut.signingKey.algorithm).toMatchObject({ name: 'RSASSA-PKCS1-v1_5' });
    expect(sut.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });

  it('converts a PKCS#1 PEM and keeps the same key', async () => {
    const pkcs1 = newRsaPem('pkcs1');
    expect(pkcs1.pem).toContain(pemBegin('RSA PRIVATE KEY'));
    const fromPkcs1 = await parseRsaPrivateKey(FILE, pkcs1.pem);
    const asPkcs8 = createPrivateKey(pkcs1.pem).export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(fromPkcs1.fingerprint).toBe((await parseRsaPrivateKey(FILE, asPkcs8)).fingerprint);
  });

  it.each([
    ['text that is no PEM', 'hello', 'not a PEM private key'],
    ['a damaged PEM body', fakePemBlock('PRIVATE KEY', 'AAAAsecretish'), 'does not decode'],
    ['an encrypted key', fakePemBlock('ENCRYPTED PRIVATE KEY', 'MIIB'), 'encrypted'],
  ])('refuses %s, naming the file but not the content', async (_case, pem, problem) => {
    const error = await problemOf(() => parseRsaPrivateKey(FILE, pem));
    expect(error.message).toContain(FILE);
    expect(error.problem).toContain(problem);
    expect(error.message).not.toContain('secretish');
    expect(error.message).not.toContain('MIIB');
  });

  it('refuses a key that is not RSA, or too short for RS256', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    const short = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    expect((await problemOf(() => parseRsaPrivateKey(FILE, ec))).problem).toBe('expected an RSA key, found ec');
    expect((await problemOf(() => parseRsaPrivateKey(FILE, short))).problem).toContain('1024 bits');
  });
});

describe(parseEd25519Secret.name, () => {
  it.each([32, 64] as const)('takes the seed from a %i-byte secret', (form) => {
    const { secret, publicKey } = newEd25519Secret(form);
    const sut = parseEd25519Secret('/keys/main.key', `${secret}\n`);
    const message = Buffer.from('1700000000000GET/v1/orders/open');
    expect(sut.seed).toHaveLength(32);
    expect(verify(null, message, publicKey, sign(null, message, sut.privateKey))).toBe(true);
  });

  it.each([
    ['an empty file', '', 'file is empty'],
    ['text that is not base64', 'this is not base64!', 'not base64 (standard alphabet)'],
    ['a wrong length', Buffer.alloc(48, 7).toString('base64'), 'decodes to 48 bytes, expected 32 or 64'],
    [
      'a 64-byte secret whose halves do not match',
      Buffer.alloc(64, 9).toString('base64'),
      'the last 32 bytes are not the public key of the first 32',
    ],
  ])('refuses %s without echoing it', (_case, text, problem) => {
    let error: unknown;
    try {
      parseEd25519Secret('/keys/main.key', text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KeyFileError);
    expect((error as KeyFileError).message).toBe(`/keys/main.key: ${problem}`);
  });
});

describe(readKeyFile.name, () => {
  const dir = mkdtempSync(join(tmpdir(), 'key-read-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says a file is missing or a directory', async () => {
    expect((await problemOf(() => readKeyFile(join(dir, 'absent.pem')))).problem).toBe('file not found');
    expect((await problemOf(() => readKeyFile(dir))).problem).toBe('is a directory');
  });

  it('reads a file', async () => {
    writeFileSync(join(dir, 'k'), 'content');
    await expect(readKeyFile(join(dir, 'k'))).resolves.toBe('content');
  });
});
