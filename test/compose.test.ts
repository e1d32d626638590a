import { readFileSync } from 'node:fs';

import { GatewayConfigSchema } from '@lib/core';
import { parse } from 'yaml';

import { SandboxConfigSchema } from '../apps/sandbox/src/config/sandbox-config.schema.js';

describe('deployment files', () => {
  it('docker-compose.yml is valid YAML naming redis, gateway and sandbox', () => {
    const compose = parse(readFileSync('docker-compose.yml', 'utf8'));
    expect(Object.keys(compose.services).sort()).toEqual(['gateway', 'redis', 'sandbox']);
    expect(compose.services.gateway.environment.REDIS_URL).toMatch(/^redis:\/\/redis:/);
  });

  it('the committed configs validate against their schemas', () => {
    for (const file of ['config/gateway.yaml', 'config/compose/gateway.yaml']) {
      expect(GatewayConfigSchema.safeParse(parse(readFileSync(file, 'utf8'))).error).toBeUndefined();
    }
    for (const file of ['config/sandbox.yaml', 'config/compose/sandbox.yaml']) {
      expect(SandboxConfigSchema.safeParse(parse(readFileSync(file, 'utf8'))).error).toBeUndefined();
    }
  });
});
