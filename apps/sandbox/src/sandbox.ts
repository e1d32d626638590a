import type { AddressInfo } from 'node:net';

import { type DynamicModule, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Server, ServerCredentials } from '@grpc/grpc-js';

import { AuthSurfaceModule } from './auth/auth-surface.module.js';
import { CatalogSurfaceModule } from './catalog/catalog-surface.module.js';
import { SandboxConfigSchema, type SandboxConfig, type SandboxConfigInput } from './config/sandbox-config.schema.js';
import { ExchangeSurfaceModule } from './exchange/exchange-surface.module.js';
import { addDropCopyService } from './exchange/grpc/dropcopy/drop-copy.grpc-service.js';
import { addMarketDataService } from './exchange/grpc/market-data.grpc-service.js';
import { addOrderEntryService } from './exchange/grpc/order-entry.grpc-service.js';
import { loadExchangeServices } from './exchange/grpc/wire/proto-services.js';
import { provisionExchangeKey, provisionRetailKey } from './keys/key-material.js';
import { RetailSurfaceModule } from './retail/retail-surface.module.js';
import { SandboxStateModule } from './shared/sandbox-state.module.js';
import { SandboxState, type SandboxUrls } from './shared/sandbox-state.js';

export type { SandboxUrls };

export interface ProvisionedKeys {
  exchange: { clientId: string; privateKeyFile: string }[];
  retail: { name: string; keyId: string; secretKeyFile: string }[];
}

export interface RunningSandbox {
  urls: SandboxUrls;
  keys: ProvisionedKeys;
  state: SandboxState;
  close(): Promise<void>;
}

const LOG_LEVELS: Record<SandboxConfig['logLevel'], LogLevel[] | false> = {
  silent: false,
  error: ['error', 'fatal'],
  warn: ['error', 'fatal', 'warn'],
  info: ['error', 'fatal', 'warn', 'log'],
  debug: ['error', 'fatal', 'warn', 'log', 'debug'],
};

/** Starts every upstream surface on its own port, after provisioning the credentials the gateway will use. */
export async function startSandbox(input: SandboxConfigInput): Promise<RunningSandbox> {
  const config = SandboxConfigSchema.parse(input);
  const state = new SandboxState(config);
  const keys = provision(config, state);

  const publicHost = config.publicHost ?? config.host;
  const apps: NestFastifyApplication[] = [];
  const surface = async (module: DynamicModule, port: number): Promise<string> => {
    const app = await NestFactory.create<NestFastifyApplication>(
      { module: class SurfaceRoot {}, imports: [SandboxStateModule.forRoot(state), module] },
      new FastifyAdapter(),
      { logger: LOG_LEVELS[config.logLevel] },
    );
    apps.push(app);
    // Responses are dated by the sandbox clock: a client learns the server's time (and any skew) from `Date`.
    app.getHttpAdapter().getInstance().addHook('onSend', (_request, reply, payload, done) => {
      reply.header('date', new Date(state.clock.now()).toUTCString());
      done(null, payload);
    });
    await app.listen({ host: config.host, port });
    const address = app.getHttpServer().address() as AddressInfo;
    return `http://${publicHost}:${address.port}`;
  };

  try {
    const auth = await surface(AuthSurfaceModule.forRoot(), config.ports.auth);
    const exchange = await surface(ExchangeSurfaceModule.forRoot(), config.ports.exchange);
    const retail = await surface(RetailSurfaceModule.forRoot(), config.ports.retail);
    const catalog = await surface(CatalogSurfaceModule.forRoot(), config.ports.catalog);
    const grpcServer = new Server();
    const services = loadExchangeServices(config.grpc.protoDir);
    addMarketDataService(grpcServer, services.marketData, state);
    addOrderEntryService(grpcServer, services.orderEntry, state);
    addDropCopyService(grpcServer, services.dropCopy, state);
    const grpcPort = await new Promise<number>((resolve, reject) =>
      grpcServer.bindAsync(`${config.host}:${config.ports.grpc}`, ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
    );
    const urls: SandboxUrls = { auth, exchange, grpc: `${publicHost}:${grpcPort}`, retail, catalog };
    // Token audience and assertion `aud` are these addresses, so checks start only once all are known.
    state.setUrls(urls);
    return {
      urls,
      keys,
      state,
      close: async () => {
        grpcServer.forceShutdown();
        await Promise.all(apps.map((app) => app.close()));
      },
    };
  } catch (error) {
    await Promise.all(apps.map((app) => app.close()));
    throw error;
  }
}

function provision(config: SandboxConfig, state: SandboxState): ProvisionedKeys {
  const keys: ProvisionedKeys = { exchange: [], retail: [] };
  for (const client of config.exchange.clients) {
    const key = provisionExchangeKey(config.keyDir, client.clientId);
    state.registerExchangeClient(client, key.publicKey);
    keys.exchange.push({ clientId: client.clientId, privateKeyFile: key.privateKeyFile });
  }
  for (const entry of config.retail.keys) {
    const key = provisionRetailKey(config.keyDir, entry.name, entry.keyId);
    state.registerRetailKey(entry.name, entry.keyId, key.publicKey);
    keys.retail.push({ name: entry.name, keyId: entry.keyId, secretKeyFile: key.secretKeyFile });
  }
  return keys;
}
