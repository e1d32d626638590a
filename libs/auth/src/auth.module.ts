import { Module } from '@nestjs/common';

import { EnvironmentBinding } from './environment/environment-binding.js';
import { ExchangeTokenProvider } from './exchange-token/exchange-token.provider.js';
import { KeyStore } from './keys/key-store.service.js';
import { RetailSigner } from './retail-signing/retail-signer.service.js';

/**
 * Upstream credential custody. Relies on @lib/core's global GATEWAY_CONFIG, MetricsRegistry,
 * Readiness and UpstreamHttp, and on a `Clock` provided by the application. Keys load in the key
 * store's onModuleInit, so a missing or malformed key stops the start.
 */
@Module({
  exports: [EnvironmentBinding, ExchangeTokenProvider, KeyStore, RetailSigner],
  providers: [EnvironmentBinding, ExchangeTokenProvider, KeyStore, RetailSigner],
})
export class AuthModule {}
