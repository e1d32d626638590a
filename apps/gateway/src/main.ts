import 'reflect-metadata';

import { ConfigError, loadGatewayConfig } from '@lib/core';

import { GatewayAppConfigSchema } from './config/gateway-config.schema.js';
import { closeGracefully, createGateway } from './gateway.factory.js';

let config;
try {
  config = loadGatewayConfig(GatewayAppConfigSchema);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  throw error;
}

const app = await createGateway(config);
await app.listen({ host: config.server.host, port: config.server.port });
const grace = config.server.shutdownGraceMs;

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void closeGracefully(app, grace).then((drained) => process.exit(drained ? 0 : 1));
  });
}
