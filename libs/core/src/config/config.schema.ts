import { isIP } from 'node:net';

import { z } from 'zod';

import { SCOPES } from '../auth/scopes.js';
import { BulkheadsSchema, ClientBulkheadSchema, TeamBulkheadSchema } from './bulkheads.schema.js';

/** Environments are separate upstream deployments with separate credentials (spec §1.4, §9.2); the addresses of each are declared by the libs that call them. */
export const ENVIRONMENT_NAMES = ['development', 'pre-production', 'production'] as const;
export type EnvironmentName = (typeof ENVIRONMENT_NAMES)[number];

/** An http(s) address (an upstream's base URL). */
export const httpUrl = z.url({ protocol: /^https?$/ });
/** A `host:port` target (a gRPC endpoint). */
export const hostPort = z.string().regex(/^[^\s/:]+:\d{1,5}$/, 'expected host:port');
/** An IPv4 or IPv6 address, optionally with a prefix length. */
function isCidr(text: string): boolean {
  const [address, bits, extra] = text.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  const prefix = Number(bits);
  return /^\d{1,3}$/.test(bits) && prefix <= (family === 4 ? 32 : 128);
}

/** Secrets are never inline: the config names a file that holds them. */
export const secretFile = z.string().min(1);

const ServerSchema = z
  .object({
    host: z.string().default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8080),
    bodyLimitBytes: z.number().int().positive().default(1_048_576),
    shutdownGraceMs: z.number().int().positive().default(10_000),
    trustProxy: z.boolean().default(false),
    /**
     * With trustProxy, the proxies whose X-Forwarded-For entries are believed (CIDRs): the client is
     * the right-most address not in this list. Only loopback by default: the firm's own apps live in
     * private ranges, so trusting those would let any of them write another's address.
     */
    trustedProxies: z
      .array(z.string().refine(isCidr, 'expected an address or CIDR (10.0.0.0/8, fd00::/8)'))
      .default(['127.0.0.0/8', '::1/128']),
    /** The request line and headers must arrive within this (slow-header clients are cut). */
    headersTimeoutMs: z.number().int().positive().default(10_000),
    /** The whole request, headers and body, must arrive within this (slow-body clients are cut). */
    requestTimeoutMs: z.number().int().positive().default(30_000),
    /** A connection with no traffic for this long is closed (also bounds a stalled body between bytes). */
    idleTimeoutMs: z.number().int().positive().default(60_000),
    /** An idle keep-alive connection is closed after this. */
    keepAliveTimeoutMs: z.number().int().positive().default(5_000),
    /** Open connections (HTTP and WebSocket) beyond this are refused by the listening socket. */
    maxConnections: z.number().int().positive().default(10_000),
    /** Deepest JSON nesting a request body may have; deeper bodies are 400 before they are parsed. */
    maxJsonDepth: z.number().int().min(1).max(1_000).default(32),
  })
  .strict()
  .refine((server) => server.headersTimeoutMs <= server.requestTimeoutMs, {
    path: ['headersTimeoutMs'],
    message: 'must not exceed requestTimeoutMs',
  });

const RedisSchema = z
  .object({
    mode: z.enum(['single', 'sentinel', 'cluster']).default('single'),
    url: z.string().optional(),
    sentinels: z.array(z.object({ host: z.string(), port: z.number().int() }).strict()).optional(),
    sentinelName: z.string().optional(),
    nodes: z.array(z.object({ host: z.string(), port: z.number().int() }).strict()).optional(),
    passwordFile: secretFile.optional(),
    keyPrefix: z.string().default('pmgw:'),
    /** Short on purpose: a slow Redis must degrade the gateway, not stall it (issue 6). */
    commandTimeoutMs: z.number().int().positive().default(50),
    connectTimeoutMs: z.number().int().positive().default(1_000),
  })
  .strict()
  .superRefine((redis, ctx) => {
    if (redis.mode === 'single' && !redis.url)
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'required when mode is single' });
    if (redis.mode === 'sentinel' && (!redis.sentinels?.length || !redis.sentinelName))
      ctx.addIssue({
        code: 'custom',
        path: ['sentinels'],
        message: 'sentinels and sentinelName are required when mode is sentinel',
      });
    if (redis.mode === 'cluster' && !redis.nodes?.length)
      ctx.addIssue({ code: 'custom', path: ['nodes'], message: 'required when mode is cluster' });
  });

const HttpSchema = z
  .object({
    connectTimeoutMs: z.number().int().positive().default(2_000),
    headersTimeoutMs: z.number().int().positive().default(10_000),
    bodyTimeoutMs: z.number().int().positive().default(10_000),
    connectionsPerOrigin: z.number().int().positive().default(64),
    keepAliveTimeoutMs: z.number().int().positive().default(30_000),
  })
  .strict();

const KeyHash = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'expected sha256:<64 lower-case hex digits>');

export const ClientSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/),
    team: z.string().min(1),
    keyHash: KeyHash,
    scopes: z.array(z.enum(SCOPES)).default([]),
    /** This client's own in-flight bounds (see BulkheadsSchema). */
    bulkhead: ClientBulkheadSchema.optional(),
  })
  .strict();

export const TeamSchema = z.object({ id: z.string().min(1), bulkhead: TeamBulkheadSchema.optional() }).strict();

const InboundSchema = z
  .object({
    /** Abuse guard per client, in process: it costs no Redis call. */
    perClientPerSecond: z.number().positive().default(500),
    perClientBurst: z.number().positive().default(1_000),
    /** Failed authentications allowed per IP per minute, so key guessing is slow. */
    failedAuthPerIpPerMinute: z.number().positive().default(20),
  })
  .strict();

/**
 * The sections @lib/core declares (they name no upstream); the gateway app assembles the one config
 * schema from these and the libs' own slices (apps/gateway/src/config).
 */
export const CoreConfigSchema = z
  .object({
    server: ServerSchema.prefault({}),
    logging: z
      .object({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info') })
      .strict()
      .prefault({}),
    redis: RedisSchema.optional(),
    http: HttpSchema.prefault({}),
    bulkheads: BulkheadsSchema.prefault({}),
    environment: z.enum(ENVIRONMENT_NAMES),
    inbound: InboundSchema.prefault({}),
    teams: z.array(TeamSchema).default([]),
    clients: z.array(ClientSchema).default([]),
  })
  .strict()
  .superRefine((config, ctx) => {
    const teams = new Set(config.teams.map((t) => t.id));
    const ids = new Set<string>();
    const hashes = new Set<string>();
    config.clients.forEach((client, i) => {
      if (!teams.has(client.team))
        ctx.addIssue({ code: 'custom', path: ['clients', i, 'team'], message: `unknown team "${client.team}"` });
      if (ids.has(client.id))
        ctx.addIssue({ code: 'custom', path: ['clients', i, 'id'], message: `duplicate client id "${client.id}"` });
      if (hashes.has(client.keyHash))
        ctx.addIssue({ code: 'custom', path: ['clients', i, 'keyHash'], message: 'two clients share one key' });
      ids.add(client.id);
      hashes.add(client.keyHash);
    });
  });

export type CoreConfig = z.infer<typeof CoreConfigSchema>;
export type CoreConfigInput = z.input<typeof CoreConfigSchema>;
export type RedisConfig = z.infer<typeof RedisSchema>;
export type HttpConfig = z.infer<typeof HttpSchema>;
