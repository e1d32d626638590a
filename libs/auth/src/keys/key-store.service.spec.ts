import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { EnvironmentBinding } from '../environment/environment-binding.js';
import {
  authConfig,
  eventually,
  type KeyDir,
  newEd25519Secret,
  newRsaPem,
  writeKeyDir,
} from '../testing/auth.fixtures.js';
import { LogCapture } from '../testing/log-capture.js';
import { KeyLoadError } from './key-load.error.js';
import { KeyStore } from './key-store.service.js';

const AUTH = 'http://127.0.0.1:4001';

describe(KeyStore.name, () => {
  let keys: KeyDir;
  let logs: LogCapture;
  let sut: KeyStore;

  beforeEach(async () => {
    logs = LogCapture.install();
    keys = writeKeyDir();
    sut = new KeyStore(new EnvironmentBinding(authConfig(keys, { authUrl: AUTH })));
    await sut.load();
  });

  afterEach(() => {
    sut.unwatch();
    keys.remove();
  });

  it("loads only the running environment's keys", () => {
    // The production entry names a file that does not exist: it is never read.
    expect(sut.files()).toEqual([keys.exchangeFile, keys.retailFile, keys.hedgeFile]);
    expect(sut.exchange()?.clientId).toBe('gateway-test');
    expect([...sut.current.retail.keys()]).toEqual(['main', 'hedge']);
  });

  it('refuses to start with missing or malformed files, naming each and showing none of their content', async () => {
    const secretLooking = 'c2VjcmV0LW1hdGVyaWFsLXRoYXQtbXVzdC1ub3QtbGVhaw';
    writeFileSync(keys.retailFile, secretLooking);
    const config = authConfig(keys, { authUrl: AUTH }, (input) => {
      const env = input.environments.development;
      if (env?.exchangeClient) env.exchangeClient.privateKeyFile = join(keys.dir, 'missing.pem');
    });

    const error = await new KeyStore(new EnvironmentBinding(config)).load().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(KeyLoadError);
    expect((error as KeyLoadError).problems).toEqual([
      { file: join(keys.dir, 'missing.pem'), problem: 'file not found' },
      { file: keys.retailFile, problem: 'decodes to 34 bytes, expected 32 or 64' },
    ]);
    expect((error as KeyLoadError).message).not.toContain(secretLooking);
  });

  it('switches to rotated keys on reload while a holder of the old set keeps it', async () => {
    const before = sut.current;
    writeFileSync(keys.exchangeFile, newRsaPem('pkcs1').pem);
    writeFileSync(keys.retailFile, newEd25519Secret().secret);

    await expect(sut.reload()).resolves.toBe(true);

    expect(sut.current.generation).toBe(before.generation + 1);
    expect(sut.exchange()?.key.fingerprint).not.toBe(before.exchange?.key.fingerprint);
    expect(sut.retail('main')?.key.fingerprint).not.toBe(before.retail.get('main')?.key.fingerprint);
    expect(sut.retail('hedge')?.key.fingerprint).toBe(before.retail.get('hedge')?.key.fingerprint);
    expect(before.retail.get('main')?.key.seed).toHaveLength(32);
    expect(logs.text()).toContain('Rotated exchange key');
  });

  it('parses again only the files whose bytes changed', async () => {
    const before = sut.current;
    writeFileSync(keys.retailFile, newEd25519Secret().secret);
    // The exchange file rewritten with its own bytes: a change event, the same key.
    writeFileSync(keys.exchangeFile, readFileSync(keys.exchangeFile));

    await expect(sut.reload()).resolves.toBe(true);

    expect(sut.exchange()?.key).toBe(before.exchange?.key);
    expect(sut.retail('hedge')?.key).toBe(before.retail.get('hedge')?.key);
    expect(sut.retail('main')?.key).not.toBe(before.retail.get('main')?.key);
    expect(sut.retail('main')?.key.fingerprint).not.toBe(before.retail.get('main')?.key.fingerprint);
  });

  it('keeps the old keys when a reload finds a bad file, and logs why without key material', async () => {
    const before = sut.current;
    const pem = newRsaPem().pem;
    writeFileSync(keys.exchangeFile, pem.slice(0, 200));

    await expect(sut.reload()).resolves.toBe(false);

    expect(sut.current).toBe(before);
    const errors = logs.lines.filter((l) => l.level === 'error').map((l) => l.message);
    expect(errors).toEqual([
      expect.stringContaining(`${keys.exchangeFile}: the PEM block does not decode to a private key`),
    ]);
    expect(errors[0]).not.toContain(pem.split('\n')[1]);
  });

  it('shares one further read between reloads asked for during a reload', async () => {
    const first = sut.reload();
    const second = sut.reload();
    const third = sut.reload();

    expect(second).toBe(third);
    await expect(Promise.all([first, second])).resolves.toEqual([true, true]);
  });

  it('reloads by itself when a key file is replaced', async () => {
    sut.watch();
    const before = sut.retail('main')?.key.fingerprint;

    writeFileSync(`${keys.retailFile}.new`, newEd25519Secret().secret);
    renameSync(`${keys.retailFile}.new`, keys.retailFile);

    await eventually(() => sut.retail('main')?.key.fingerprint !== before);
  });

  it('reloads on SIGHUP, and stops listening when closed', async () => {
    sut.watch();
    const generation = sut.current.generation;
    writeFileSync(keys.hedgeFile, newEd25519Secret(64).secret);

    process.emit('SIGHUP', 'SIGHUP');
    await eventually(() => sut.current.generation > generation);

    sut.unwatch();
    expect(process.listenerCount('SIGHUP')).toBe(0);
  });
});
