import type { AddressInfo } from 'node:net';

import { type DynamicModule, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';

import { AuthSurfaceModule } from './auth/auth-surface.module.js';
import { CatalogSurfaceModule } from './catalog/catalog-surface.module.js';
import { SandboxConfigSchema, type SandboxConfig, type SandboxConfigInput } from './config/sandbox-config.schema.js';
import { ExchangeSurfaceModule } from './exchange/exchange-surface.module.js';
import { startExchangeGrpc } from './exchange/grpc/exchange-grpc.server.js';
import { provisionExchangeKey, provisionRetailKey } from './keys/key-material.js';
import { RetailSurfaceModule } from './retail/retail-surface.module.js';
import { SandboxControl } from './root/sandbox-control.js';
import {
  authSurfaceParts,
  catalogSurfaceParts,
  composeSandbox,
  exchangeGrpcParts,
  exchangeSurfaceParts,
  retailSurfaceParts,
} from './root/sandbox-parts.js';
import type { SandboxUrls } from './shared/sandbox-addresses.js';

export type { SandboxUrls };

export interface ProvisionedKeys {
  exchange: { clientId: string; privateKeyFile: string }[];
  retail: { name: string; keyId: string; secretKeyFile: string }[];
}

export interface RunningSandbox {
  urls: SandboxUrls;
  keys: ProvisionedKeys;
  /** The test's and operator's handle on every part (counters, faults, engine, streams, ...). */
  state: SandboxControl;
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
  const parts = composeSandbox(config);
  const control = new SandboxControl(parts);
  const keys = provision(config, control);

  const publicHost = config.publicHost ?? config.host;
  const apps: NestFastifyApplication[] = [];
  const surface = async (module: DynamicModule, port: number): Promise<string> => {
    const app = await NestFactory.create<NestFastifyApplication>(
      { module: class SurfaceRoot {}, imports: [module] },
      new FastifyAdapter(),
      {
        logger: LOG_LEVELS[config.logLevel],
      },
    );
    apps.push(app);
    // Responses are dated by the sandbox clock: a client learns the server's time (and any skew) from `Date`.
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onSend', (_request, reply, payload, done) => {
        reply.header('date', new Date(parts.clock.now()).toUTCString());
        done(null, payload);
      });
    await app.listen({ host: config.host, port });
    const address = app.getHttpServer().address() as AddressInfo;
    return `http://${publicHost}:${address.port}`;
  };

  try {
    const auth = await surface(AuthSurfaceModule.forRoot(authSurfaceParts(parts)), config.ports.auth);
    const exchange = await surface(ExchangeSurfaceModule.forRoot(exchangeSurfaceParts(parts)), config.ports.exchange);
    const retail = await surface(RetailSurfaceModule.forRoot(retailSurfaceParts(parts)), config.ports.retail);
    const catalog = await surface(CatalogSurfaceModule.forRoot(catalogSurfaceParts(parts)), config.ports.catalog);
    const grpc = await startExchangeGrpc(exchangeGrpcParts(parts), config.host, config.ports.grpc);
    const urls: SandboxUrls = { auth, exchange, grpc: `${publicHost}:${grpc.port}`, retail, catalog };
    // Token audience and assertion `aud` are these addresses, so checks start only once all are known.
    parts.addresses.set(urls);
    return {
      urls,
      keys,
      state: control,
      close: async () => {
        grpc.close();
        await Promise.all(apps.map((app) => app.close()));
      },
    };
  } catch (error) {
    await Promise.all(apps.map((app) => app.close()));
    throw error;
  }
}

function provision(config: SandboxConfig, control: SandboxControl): ProvisionedKeys {
  const keys: ProvisionedKeys = { exchange: [], retail: [] };
  for (const client of config.exchange.clients) {
    const key = provisionExchangeKey(config.keyDir, client.clientId);
    control.registerExchangeClient(client, key.publicKey);
    keys.exchange.push({ clientId: client.clientId, privateKeyFile: key.privateKeyFile });
  }
  for (const entry of config.retail.keys) {
    const key = provisionRetailKey(config.keyDir, entry.name, entry.keyId);
    control.registerRetailKey(entry.name, entry.keyId, key.publicKey);
    keys.retail.push({ name: entry.name, keyId: entry.keyId, secretKeyFile: key.secretKeyFile });
  }
  return keys;
}
