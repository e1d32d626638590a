import { readFileSync } from 'node:fs';

import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';

/** Thrown at start when the configuration is unusable; lists every problem at once. */
export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`Invalid configuration in ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

/** Validates a raw object against a schema and lists every issue with its key path. */
export function validateConfig<S extends z.ZodType>(schema: S, raw: unknown, source: string): z.infer<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.join('.') : '(root)';
    return `${path}: ${issue.message}`;
  });
  throw new ConfigError(source, problems);
}

/** Reads a YAML file into a plain object; a missing or malformed file is a ConfigError, not a stack trace. */
export function readYamlFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(path, [`cannot read file: ${(error as NodeJS.ErrnoException).code ?? 'unknown error'}`]);
  }
  try {
    return parseYaml(text) ?? {};
  } catch (error) {
    throw new ConfigError(path, [`not valid YAML: ${(error as Error).message.split('\n')[0]}`]);
  }
}

/**
 * The one place that reads the process environment for the gateway:
 * `GATEWAY_CONFIG` names the file; `REDIS_URL` (one node), `REDIS_CLUSTER_NODES` (`host:port,…`) and
 * `LOG_LEVEL` override it. The app passes its assembled schema (the core sections and its libs' slices); this validates whatever it is given.
 */
export function loadGatewayConfig<S extends z.ZodType>(schema: S, env: Env = process.env): z.infer<S> {
  const path = env.GATEWAY_CONFIG ?? 'config/gateway.yaml';
  const raw = readYamlFile(path);
  return validateConfig(schema, applyEnvOverrides(raw, env), path);
}

function hostPorts(list: string): { host: string; port: number }[] {
  return list.split(',').map((address) => {
    const [host, port] = address.trim().split(':');
    return { host, port: Number(port) };
  });
}

function applyEnvOverrides(raw: unknown, env: Env): unknown {
  if (typeof raw !== 'object' || raw === null) return raw;
  const config = { ...(raw as Record<string, unknown>) };
  if (env.REDIS_URL) config.redis = { ...((config.redis as object) ?? {}), mode: 'single', url: env.REDIS_URL };
  if (env.REDIS_CLUSTER_NODES)
    config.redis = { ...((config.redis as object) ?? {}), mode: 'cluster', nodes: hostPorts(env.REDIS_CLUSTER_NODES) };
  if (env.JOURNAL_URL) config.journal = { ...((config.journal as object) ?? {}), url: env.JOURNAL_URL };
  if (env.JOURNAL_MIGRATION_URL)
    config.journal = { ...((config.journal as object) ?? {}), migrationUrl: env.JOURNAL_MIGRATION_URL };
  if (env.LOG_LEVEL) config.logging = { ...((config.logging as object) ?? {}), level: env.LOG_LEVEL };
  if (env.GATEWAY_PORT) config.server = { ...((config.server as object) ?? {}), port: Number(env.GATEWAY_PORT) };
  return config;
}
