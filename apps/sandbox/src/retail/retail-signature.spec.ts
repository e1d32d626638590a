import { generateKeyPairSync, sign } from 'node:crypto';

import { RetailKeys } from '../shared/retail-keys.js';
import { SandboxClock } from '../shared/sandbox-clock.js';
import { SandboxCounters } from '../shared/sandbox-counters.js';
import { RETAIL_TIMESTAMP_WINDOW_MS, retailSigningInput, verifyRetailSignature } from './retail-signature.js';

const KEY_ID = '3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d';

describe(verifyRetailSignature.name, () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const state = { retailKeys: new RetailKeys(), clock: new SandboxClock(), counters: new SandboxCounters() };
  state.retailKeys.register('main', KEY_ID, publicKey);

  const headers = (timestamp: number, signedText: string) => ({
    'x-pm-access-key': KEY_ID,
    'x-pm-timestamp': String(timestamp),
    'x-pm-signature': sign(null, Buffer.from(signedText, 'utf8'), privateKey).toString('base64'),
  });

  it('signs `<timestamp><METHOD><pathname>` with no separators', () => {
    expect(retailSigningInput('1700000000000', 'post', '/v1/orders').toString('utf8')).toBe(
      '1700000000000POST/v1/orders',
    );
  });

  it('accepts a request target with a query string, which is not signed', () => {
    const now = state.clock.now();
    expect(
      verifyRetailSignature(state, 'GET', '/v1/orders/open?slugs=a', headers(now, `${now}GET/v1/orders/open`)),
    ).toMatchObject({ ok: true });
  });

  it('accepts a timestamp just inside the 30 s window', () => {
    const edge = state.clock.now() - RETAIL_TIMESTAMP_WINDOW_MS + 50;
    expect(verifyRetailSignature(state, 'GET', '/v1/orders/open', headers(edge, `${edge}GET/v1/orders/open`)).ok).toBe(
      true,
    );
  });

  it.each([
    ['another method', 'POST'],
    ['an upper-cased path', '/V1/ORDERS/OPEN'],
  ])('refuses a signature made for %s', (_, variant) => {
    const now = state.clock.now();
    const signed = variant.startsWith('/') ? `${now}GET${variant}` : `${now}${variant}/v1/orders/open`;
    expect(verifyRetailSignature(state, 'GET', '/v1/orders/open', headers(now, signed))).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('refuses a repeated key header as missing', () => {
    const now = state.clock.now();
    const repeated = { ...headers(now, `${now}GET/v1/x`), 'x-pm-access-key': [KEY_ID, KEY_ID] };
    expect(verifyRetailSignature(state, 'GET', '/v1/x', repeated)).toMatchObject({
      ok: false,
      reason: 'missing_header',
    });
  });

  it('refuses a timestamp that is not milliseconds', () => {
    expect(verifyRetailSignature(state, 'GET', '/v1/x', headers(Number.NaN, 'x'))).toMatchObject({
      ok: false,
      reason: 'bad_timestamp',
    });
  });
});
