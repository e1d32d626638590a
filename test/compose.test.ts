import { readFileSync } from 'node:fs';

import { parse } from 'yaml';

import { GatewayAppConfigSchema } from '../apps/gateway/src/config/gateway-config.schema.js';
import { SandboxConfigSchema } from '../apps/sandbox/src/config/sandbox-config.schema.js';

describe('deployment files', () => {
  it('docker-compose.yml is valid YAML naming redis, gateway and sandbox, and a cluster profile of two gateways on a Redis Cluster', () => {
    const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true });
    const services = Object.entries(compose.services) as [
      string,
      { profiles?: string[]; command?: string[]; environment?: Record<string, string> },
    ][];
    expect(
      services
        .filter(([, s]) => !s.profiles)
        .map(([name]) => name)
        .sort(),
    ).toEqual(['gateway', 'postgres', 'redis', 'sandbox']);
    expect(compose.services.gateway.environment.REDIS_URL).toMatch(/^redis:\/\/redis:/);
    // The journal writes as the application role (insert and select only); migrations run as the owner.
    expect(compose.services.gateway.environment.JOURNAL_URL).toMatch(/^postgres:\/\/pmgw_app@postgres:/);
    const cluster = services.filter(([, s]) => s.profiles?.includes('cluster'));
    const nodes = cluster.filter(([, s]) => s.command?.includes('--cluster-enabled')).map(([name]) => `${name}:6379`);
    expect(nodes).toHaveLength(6);
    const gateways = cluster.filter(([, s]) => s.environment?.REDIS_CLUSTER_NODES);
    expect(gateways).toHaveLength(2);
    for (const [, gateway] of gateways) expect(gateway.environment?.REDIS_CLUSTER_NODES.split(',')).toEqual(nodes);
  });

  it('the committed configs validate against their schemas', () => {
    for (const file of ['config/gateway.yaml', 'config/compose/gateway.yaml']) {
      expect(GatewayAppConfigSchema.safeParse(parse(readFileSync(file, 'utf8'))).error).toBeUndefined();
    }
    for (const file of ['config/sandbox.yaml', 'config/compose/sandbox.yaml']) {
      expect(SandboxConfigSchema.safeParse(parse(readFileSync(file, 'utf8'))).error).toBeUndefined();
    }
  });
});
