import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { SandboxConfigInput } from '../../apps/sandbox/src/config/sandbox-config.schema.js';
import { type RunningSandbox, startSandbox } from '../../apps/sandbox/src/sandbox.js';

/** The sandbox alone, on ephemeral ports with keys in a temp folder that close() removes. */
export async function startTestSandbox(config: Partial<SandboxConfigInput>): Promise<RunningSandbox> {
  const keyDir = mkdtempSync(join(tmpdir(), 'sandbox-test-keys-'));
  const sandbox = await startSandbox({
    ports: { auth: 0, exchange: 0, grpc: 0, retail: 0, catalog: 0 },
    keyDir,
    logLevel: 'silent',
    ...config,
  });
  return {
    ...sandbox,
    close: async () => {
      await sandbox.close();
      rmSync(keyDir, { recursive: true, force: true });
    },
  };
}
