import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ConfigError, type Env, loadGatewayConfig } from '@lib/core';

import { GatewayAppConfigSchema } from './gateway-config.schema.js';

const VALID = `
environment: development
environments:
  development:
    authUrl: http://127.0.0.1:4001
    exchangeUrl: http://127.0.0.1:4002
    grpcTarget: 127.0.0.1:4003
    retailUrl: http://127.0.0.1:4004
    catalogUrl: http://127.0.0.1:4005
teams: [{ id: platform }]
clients:
  - id: bot
    team: platform
    keyHash: sha256:${'a'.repeat(64)}
    scopes: [read:orders]
`;

/** The loader with the schema the gateway starts with. */
const load = (env: Env) => loadGatewayConfig(GatewayAppConfigSchema, env);

function write(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'gateway.yaml');
  writeFileSync(path, text);
  return path;
}

function problemsOf(text: string): string[] {
  try {
    load({ GATEWAY_CONFIG: write(text) });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe(loadGatewayConfig.name, () => {
  it('accepts a valid file and fills the defaults', () => {
    const config = load({ GATEWAY_CONFIG: write(VALID) });
    expect(config.server.port).toBe(8080);
    expect(config.exchange.refreshEarlySeconds).toBe(30);
    expect(config.clients[0].scopes).toEqual(['read:orders']);
  });

  it('lists every bad key in one error', () => {
    const bad = VALID.replace('port', 'x')
      .replace('grpcTarget: 127.0.0.1:4003', 'grpcTarget: not a target')
      .replace('scopes: [read:orders]', 'scopes: [read:everything]\n    apiKey: inline-secret')
      .replace('team: platform\n', 'team: nobody\n')
      .concat('surprise: true\n');
    const problems = problemsOf(bad);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^environments\.development\.grpcTarget: /),
        expect.stringMatching(/^clients\.0\.scopes\.0: /),
        expect.stringMatching(/^clients\.0: .*apiKey/),
        expect.stringMatching(/surprise/),
      ]),
    );
    expect(problems.length).toBeGreaterThanOrEqual(4);
  });

  it('refuses a running environment without addresses', () => {
    expect(problemsOf(VALID.replace('environment: development', 'environment: production'))).toEqual([
      expect.stringMatching(/^environments\.production: /),
    ]);
  });

  it('names an unknown team and a malformed key hash', () => {
    const problems = problemsOf(
      VALID.replace('team: platform\n    keyHash: sha256:' + 'a'.repeat(64), 'team: nobody\n    keyHash: plain-key'),
    );
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^clients\.0\.keyHash: /)]));
  });

  it('names a stream share of an unknown team', () => {
    expect(problemsOf(`${VALID}streams: { exchange: { teamShares: { nobody: 2 } } }\n`)).toEqual([
      expect.stringMatching(/^streams\.exchange\.teamShares\.nobody: unknown team/),
    ]);
  });

  it('reports an unreadable file as a config error', () => {
    expect(() => load({ GATEWAY_CONFIG: '/nonexistent/gateway.yaml' })).toThrow(ConfigError);
  });

  it('lets REDIS_URL switch on shared mode', () => {
    const config = load({ GATEWAY_CONFIG: write(VALID), REDIS_URL: 'redis://127.0.0.1:6390' });
    expect(config.redis).toMatchObject({ mode: 'single', url: 'redis://127.0.0.1:6390', commandTimeoutMs: 50 });
  });

  it('lets REDIS_CLUSTER_NODES switch on a Redis Cluster', () => {
    const config = load({
      GATEWAY_CONFIG: write(VALID),
      REDIS_CLUSTER_NODES: 'redis-node-1:6379, redis-node-2:6379',
    });
    expect(config.redis).toMatchObject({
      mode: 'cluster',
      nodes: [
        { host: 'redis-node-1', port: 6379 },
        { host: 'redis-node-2', port: 6379 },
      ],
    });
  });
});
