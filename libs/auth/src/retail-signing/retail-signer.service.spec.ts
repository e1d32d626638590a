import { type KeyObject, verify } from 'node:crypto';
import { writeFileSync } from 'node:fs';

import { MetricsRegistry } from '@lib/core';

import { CredentialTargetError, EnvironmentBinding } from '../environment/environment-binding.js';
import { KeyStore } from '../keys/key-store.service.js';
import {
  authConfig,
  HEDGE_KEY_ID,
  type KeyDir,
  ManualClock,
  newEd25519Secret,
  RETAIL_KEY_ID,
  writeKeyDir,
} from '../testing/auth.fixtures.js';
import { LogCapture } from '../testing/log-capture.js';
import { signWithNodeCrypto, signWithNoble } from './ed25519.js';
import { RetailSigner } from './retail-signer.service.js';

const RETAIL = 'http://127.0.0.1:4004';

function verifies(headers: Record<string, string>, signed: string, publicKey: KeyObject): boolean {
  return verify(null, Buffer.from(signed, 'utf8'), publicKey, Buffer.from(headers['X-PM-Signature'], 'base64'));
}

describe(RetailSigner.name, () => {
  let keys: KeyDir;
  let store: KeyStore;
  let clock: ManualClock;
  let registry: MetricsRegistry;
  let logs: LogCapture;
  let sut: RetailSigner;

  beforeEach(async () => {
    logs = LogCapture.install();
    keys = writeKeyDir();
    const config = authConfig(keys, { authUrl: 'http://127.0.0.1:4001', retailUrl: RETAIL });
    const binding = new EnvironmentBinding(config);
    store = new KeyStore(binding);
    await store.load();
    clock = new ManualClock();
    registry = new MetricsRegistry();
    sut = new RetailSigner(config, binding, store, registry, clock);
  });

  afterEach(() => keys.remove());

  it('signs <timestamp><METHOD><pathname> and sends the key id and timestamp beside it', () => {
    const headers = sut.sign('main', 'post', `${RETAIL}/v1/orders`);

    expect(headers).toEqual({
      'X-PM-Access-Key': RETAIL_KEY_ID,
      'X-PM-Timestamp': String(clock.ms),
      'X-PM-Signature': expect.stringMatching(/^[A-Za-z0-9+/]{86}==$/),
    });
    expect(verifies(headers, `${clock.ms}POST/v1/orders`, keys.retailPublicKey)).toBe(true);
  });

  it('leaves the query string and fragment out of the signed string', () => {
    const headers = sut.sign('main', 'GET', `${RETAIL}/v1/portfolio/activities?limit=5&types=A&types=B#top`);

    expect(verifies(headers, `${clock.ms}GET/v1/portfolio/activities`, keys.retailPublicKey)).toBe(true);
    expect(headers['X-PM-Signature']).toBe(
      sut.sign('main', 'GET', `${RETAIL}/v1/portfolio/activities`)['X-PM-Signature'],
    );
  });

  it('signs a WebSocket upgrade as GET of the channel path', () => {
    const headers = sut.sign('main', 'GET', 'ws://127.0.0.1:4004/v1/ws/private');

    expect(verifies(headers, `${clock.ms}GET/v1/ws/private`, keys.retailPublicKey)).toBe(true);
  });

  it('signs with a key issued in the 64-byte form', () => {
    const headers = sut.sign('hedge', 'DELETE', `${RETAIL}/v1/order/abc/cancel`);

    expect(headers['X-PM-Access-Key']).toBe(HEDGE_KEY_ID);
    expect(verifies(headers, `${clock.ms}DELETE/v1/order/abc/cancel`, keys.hedgePublicKey)).toBe(true);
  });

  it('produces the same bytes with node:crypto as with @noble/ed25519', () => {
    const messages = ['', '1800000000000GET/', '1800000000000POST/v1/orders', 'é ünïcode ✓'.repeat(40)].map((m) =>
      Buffer.from(m, 'utf8'),
    );
    for (const name of ['main', 'hedge']) {
      const key = store.retail(name)!.key;
      for (const message of messages)
        expect(Buffer.from(signWithNodeCrypto(key, message))).toEqual(Buffer.from(signWithNoble(key, message)));
    }
  });

  it.each([
    ['another port', 'http://127.0.0.1:4005/v1/orders'],
    ['https on an http retail origin', 'https://127.0.0.1:4004/v1/orders'],
    ['wss on an http retail origin', 'wss://127.0.0.1:4004/v1/ws/private'],
    ['the exchange', 'http://127.0.0.1:4002/v1/trading/orders'],
    ['the production retail API', 'https://retail.example.com/v1/orders'],
    ['a relative path', '/v1/orders'],
  ])('refuses to sign for %s', (_case, url) => {
    expect(() => sut.sign('main', 'GET', url)).toThrow(CredentialTargetError);
  });

  it('knows its accounts and refuses an unknown one', () => {
    expect(sut.accountNames()).toEqual(['main', 'hedge']);
    expect(sut.hasAccount('hedge')).toBe(true);
    expect(sut.hasAccount('other')).toBe(false);
    expect(() => sut.sign('other', 'GET', `${RETAIL}/v1/orders/open`)).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    );
  });

  it('signs with the new key after a rotation', async () => {
    const rotated = newEd25519Secret();
    writeFileSync(keys.retailFile, rotated.secret);
    await store.reload();

    const headers = sut.sign('main', 'GET', `${RETAIL}/v1/account/balances`);

    expect(verifies(headers, `${clock.ms}GET/v1/account/balances`, rotated.publicKey)).toBe(true);
    expect(verifies(headers, `${clock.ms}GET/v1/account/balances`, keys.retailPublicKey)).toBe(false);
  });

  it('never shows the signature or secret in its logs or metrics', async () => {
    const headers = sut.sign('main', 'GET', `${RETAIL}/v1/orders/open`);
    sut.observeServerDate(new Date(clock.ms + 60_000).toUTCString(), clock.ms, clock.ms);

    const text = logs.text() + (await registry.metrics());
    expect(text).not.toContain(headers['X-PM-Signature']);
    expect(text).not.toContain(Buffer.from(store.retail('main')!.key.seed).toString('base64'));
  });
});
