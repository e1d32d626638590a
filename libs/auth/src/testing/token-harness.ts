import { type Clock, MetricsRegistry, Readiness, UpstreamHttp } from '@lib/core';

import { EnvironmentBinding } from '../environment/environment-binding.js';
import { ExchangeTokenProvider } from '../exchange-token/exchange-token.provider.js';
import { KeyStore } from '../keys/key-store.service.js';
import { type AuthTestConfig, authConfig, type KeyDir, TokenServer, writeKeyDir } from './auth.fixtures.js';

export const EXCHANGE = 'http://127.0.0.1:4002';

/** An ExchangeTokenProvider built with `new` against a local TokenServer, as the specs and the bench use it. */
export class TokenHarness {
  readonly server = new TokenServer();
  sut!: ExchangeTokenProvider;
  config!: AuthTestConfig;
  binding!: EnvironmentBinding;
  store!: KeyStore;
  registry!: MetricsRegistry;
  readiness!: Readiness;
  private http: UpstreamHttp | undefined;
  private authUrl: string | undefined;

  /** Its own key directory, removed by close(). */
  readonly keys: KeyDir = writeKeyDir();

  constructor(readonly clock: Clock) {}

  /** (Re)builds the provider; `edit` changes the config first. The token server keeps its state. */
  async build(edit?: Parameters<typeof authConfig>[2]): Promise<ExchangeTokenProvider> {
    await this.closeProvider();
    this.authUrl ??= await this.server.start();
    this.config = authConfig(this.keys, { authUrl: this.authUrl, exchangeUrl: EXCHANGE }, edit);
    this.binding = new EnvironmentBinding(this.config);
    this.store = new KeyStore(this.binding);
    await this.store.load();
    this.http = new UpstreamHttp(this.config);
    this.registry = new MetricsRegistry();
    this.readiness = new Readiness();
    this.sut = new ExchangeTokenProvider(
      this.config,
      this.binding,
      this.store,
      this.http,
      this.registry,
      this.readiness,
      this.clock,
    );
    return this.sut;
  }

  async close(): Promise<void> {
    await this.closeProvider();
    await this.server.stop();
    this.keys.remove();
  }

  private async closeProvider(): Promise<void> {
    this.sut?.onApplicationShutdown();
    await this.http?.onApplicationShutdown();
    this.http = undefined;
  }
}
