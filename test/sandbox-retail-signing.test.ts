import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { AuthenticationError, PolymarketUS } from 'polymarket-us';

import type { RunningSandbox } from '../apps/sandbox/src/sandbox.js';
import { startTestSandbox } from './support/sandbox-harness.js';
import type { Json } from './support/stack.js';

const KEY_ID = '3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d';
const BALANCES = '/v1/account/balances';
// PKCS#8 DER header of an Ed25519 private key; the 32-byte seed follows (RFC 8410).
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({ retail: { keys: [{ name: 'main', keyId: KEY_ID }] } });
});
afterAll(() => sandbox.close());
afterEach(() => sandbox.state.setClockSkew(0));

const json = (res: Response): Promise<Json> => res.json() as Promise<Json>;
/** The secret as issued: base64 of the key file the sandbox wrote. */
const secretKey = (): string => readFileSync(sandbox.keys.retail[0].secretKeyFile, 'utf8').trim();
const ownKey = (): KeyObject =>
  createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, Buffer.from(secretKey(), 'base64')]),
    format: 'der',
    type: 'pkcs8',
  });
const sdk = (): PolymarketUS =>
  new PolymarketUS({
    keyId: KEY_ID,
    secretKey: secretKey(),
    apiBaseUrl: sandbox.urls.retail,
    gatewayBaseUrl: sandbox.urls.catalog,
  });

interface Signing {
  /** What the signature covers; defaults to the pathname requested. */
  signedPath?: string;
  timestamp?: number;
  key?: KeyObject;
  keyId?: string;
  omit?: string;
}

/** A GET signed here with node:crypto, independently of both the sandbox and the SDK. */
function signedGet(target: string, signing: Signing = {}): Promise<Response> {
  const timestamp = String(signing.timestamp ?? Date.now());
  const signedPath = signing.signedPath ?? target.split('?')[0];
  const signature = sign(null, Buffer.from(`${timestamp}GET${signedPath}`, 'utf8'), signing.key ?? ownKey()).toString(
    'base64',
  );
  const headers: Record<string, string> = {
    'X-PM-Access-Key': signing.keyId ?? KEY_ID,
    'X-PM-Timestamp': timestamp,
    'X-PM-Signature': signature,
  };
  if (signing.omit) delete headers[signing.omit];
  return fetch(sandbox.urls.retail + target, { headers });
}

describe('sandbox retail surface: signed requests', () => {
  it('accepts a balances request signed by the official SDK', async () => {
    const before = sandbox.state.counter(`retail.accepted.key.${KEY_ID}`);
    const { balances } = (await sdk().account.balances()) as { balances: Json[] };
    expect(balances).toEqual([
      expect.objectContaining({
        currentBalance: 10_000,
        currency: 'USD',
        buyingPower: 10_000,
        lastUpdated: expect.any(String),
      }),
    ]);
    expect(sandbox.state.counter(`retail.accepted.key.${KEY_ID}`)).toBe(before + 1);
    const fingerprint = sandbox.state.retailKeys.get(KEY_ID)?.fingerprint;
    expect(sandbox.state.counter(`retail.accepted.fingerprint.${fingerprint}`)).toBeGreaterThan(0);
  });

  it('accepts a signature over the pathname when the request carries a query string', async () => {
    expect((await signedGet(`${BALANCES}?currency=USD`)).status).toBe(200);
  });

  it.each<[string, string, () => Promise<Response>]>([
    [
      'a signature over path and query',
      'bad_signature',
      () => signedGet(`${BALANCES}?currency=USD`, { signedPath: `${BALANCES}?currency=USD` }),
    ],
    [
      'a signature over another path',
      'bad_signature',
      () => signedGet(BALANCES, { signedPath: '/v1/portfolio/positions' }),
    ],
    [
      'a signature by another key',
      'bad_signature',
      () => signedGet(BALANCES, { key: generateKeyPairSync('ed25519').privateKey }),
    ],
    ['an unknown key id', 'unknown_key', () => signedGet(BALANCES, { keyId: '00000000-0000-4000-8000-000000000000' })],
    ['a timestamp 31 s behind', 'stale_timestamp', () => signedGet(BALANCES, { timestamp: Date.now() - 31_000 })],
    ['a timestamp 31 s ahead', 'stale_timestamp', () => signedGet(BALANCES, { timestamp: Date.now() + 31_000 })],
    ['no X-PM-Access-Key', 'missing_header', () => signedGet(BALANCES, { omit: 'X-PM-Access-Key' })],
    ['no X-PM-Timestamp', 'missing_header', () => signedGet(BALANCES, { omit: 'X-PM-Timestamp' })],
    ['no X-PM-Signature', 'missing_header', () => signedGet(BALANCES, { omit: 'X-PM-Signature' })],
  ])('answers 401 {message} to %s (%s)', async (_, reason, send) => {
    const before = sandbox.state.counter(`retail.rejected.${reason}`);
    const res = await send();
    expect({ status: res.status, body: await json(res) }).toEqual({
      status: 401,
      body: { message: expect.any(String) },
    });
    expect(sandbox.state.counter(`retail.rejected.${reason}`)).toBe(before + 1);
  });

  it('refuses the SDK when the sandbox clock is 45 s ahead, and accepts a client that learned the offset', async () => {
    sandbox.state.setClockSkew(45_000);
    await expect(sdk().account.balances()).rejects.toBeInstanceOf(AuthenticationError);
    const refused = await signedGet(BALANCES);
    expect(refused.status).toBe(401);
    // The Date header tells the client the server's time, which is how it learns the offset.
    expect(Date.parse(refused.headers.get('date') ?? '') - Date.now()).toBeGreaterThan(40_000);
    expect((await signedGet(BALANCES, { timestamp: Date.now() + 45_000 })).status).toBe(200);
  });

  it('answers unknown routes with 404 {message}', async () => {
    const res = await signedGet('/v1/nowhere');
    expect({ status: res.status, body: await json(res) }).toEqual({
      status: 404,
      body: { message: expect.any(String) },
    });
  });
});
