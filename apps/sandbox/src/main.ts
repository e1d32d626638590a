import 'reflect-metadata';

import { ConfigError, readYamlFile, validateConfig } from '@lib/core';

import { SandboxConfigSchema } from './config/sandbox-config.schema.js';
import { startSandbox } from './sandbox.js';

// The sandbox's one read of the environment: which config file to use.
// eslint-disable-next-line no-restricted-properties
const path = process.env.SANDBOX_CONFIG ?? 'config/sandbox.yaml';
let config;
try {
  config = validateConfig(SandboxConfigSchema, readYamlFile(path), path);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  throw error;
}

const sandbox = await startSandbox(config);
process.stdout.write(`${JSON.stringify({ sandbox: 'ready', urls: sandbox.urls })}\n`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => void sandbox.close().then(() => process.exit(0)));
}
