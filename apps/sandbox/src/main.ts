import 'reflect-metadata';

import { loadSandboxConfig } from './config/sandbox-config.loader.js';
import { startSandbox } from './sandbox.js';

// The sandbox's one read of the environment: which config file to use.
// eslint-disable-next-line no-restricted-properties
const path = process.env.SANDBOX_CONFIG ?? 'config/sandbox.yaml';
const loaded = loadSandboxConfig(path);
if (!loaded.ok) {
  process.stderr.write(`Invalid configuration in ${path}:\n${loaded.problems.map((p) => `  - ${p}`).join('\n')}\n`);
  process.exit(78);
}

const sandbox = await startSandbox(loaded.config);
process.stdout.write(`${JSON.stringify({ sandbox: 'ready', urls: sandbox.urls })}\n`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => void sandbox.close().then(() => process.exit(0)));
}
