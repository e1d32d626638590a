import { writeFileSync } from 'node:fs';

import { Global, Module, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Clock, ConfigModule, HttpModule, MetricsModule, ReadinessModule, SystemClock } from '@lib/core';

import { AuthModule } from './auth.module.js';
import { ExchangeTokenProvider } from './exchange-token/exchange-token.provider.js';
import { KeyLoadError } from './keys/key-load.error.js';
import { KeyStore } from './keys/key-store.service.js';
import { RetailSigner } from './retail-signing/retail-signer.service.js';
import { type AuthTestConfig, authConfig, type KeyDir, ManualClock, writeKeyDir } from './testing/auth.fixtures.js';
import { LogCapture } from './testing/log-capture.js';

/** Wired as the gateway wires it: core's global modules, and a Clock in the application's root module. */
function appModule(config: AuthTestConfig, clockModule?: Type) {
  @Module({
    imports: [
      ConfigModule.forRoot(config),
      MetricsModule,
      ReadinessModule,
      HttpModule,
      AuthModule,
      ...(clockModule ? [clockModule] : []),
    ],
    providers: [{ provide: Clock, useClass: SystemClock }],
  })
  class TestAppModule {}
  return TestAppModule;
}

const manualClock = new ManualClock();

@Global()
@Module({ exports: [Clock], providers: [{ provide: Clock, useValue: manualClock }] })
class GlobalClockModule {}

describe(AuthModule.name, () => {
  let keys: KeyDir;

  beforeEach(() => {
    LogCapture.install();
    keys = writeKeyDir();
  });
  afterEach(() => keys.remove());

  it('provides the token provider, the signer and the key store with keys loaded at init', async () => {
    const app = await Test.createTestingModule({
      imports: [appModule(authConfig(keys, { authUrl: 'http://127.0.0.1:1' }))],
    }).compile();
    await app.init();

    expect(app.get(KeyStore).current.generation).toBe(1);
    expect(app.get(RetailSigner).accountNames()).toEqual(['main', 'hedge']);
    expect(app.get(ExchangeTokenProvider).configured).toBe(true);
    await app.close();
    expect(process.listenerCount('SIGHUP')).toBe(0);
  });

  it('takes its time from a globally provided Clock', async () => {
    const app = await Test.createTestingModule({
      imports: [appModule(authConfig(keys, { authUrl: 'http://127.0.0.1:1' }), GlobalClockModule)],
    }).compile();
    await app.init();

    expect(app.get(RetailSigner).sign('main', 'GET', 'http://127.0.0.1:4004/v1/orders/open')['X-PM-Timestamp']).toBe(
      String(manualClock.ms),
    );
    await app.close();
  });

  it('stops the start when a key is malformed', async () => {
    writeFileSync(keys.retailFile, 'not a key');
    const app = await Test.createTestingModule({
      imports: [appModule(authConfig(keys, { authUrl: 'http://127.0.0.1:1' }))],
    }).compile();

    await expect(app.init()).rejects.toBeInstanceOf(KeyLoadError);
    await app.close();
  });
});
