import { z } from 'zod';

import { EXCHANGE_LIMIT_CLASSES, EXCHANGE_TIERS } from '../exchange/rate-limit/published-limits.js';

const port = z.number().int().min(0).max(65535);
const UPSTREAM_SCOPES = [
  'read:marketdata',
  'read:l2marketdata',
  'read:instruments',
  'read:orders',
  'write:orders',
  'read:reports',
  'read:positions',
  'read:dropcopy',
  'read:accounts',
  'read:funding',
  'write:funding',
] as const;

export const SandboxConfigSchema = z
  .object({
    host: z.string().default('127.0.0.1'),
    /** The host name clients use to reach the sandbox (its URLs, token audience); defaults to `host`. */
    publicHost: z.string().optional(),
    /** 0 = an ephemeral port (tests). Each surface has its own origin, as upstream does. */
    ports: z
      .object({
        auth: port.default(4001),
        exchange: port.default(4002),
        grpc: port.default(4003),
        retail: port.default(4004),
        catalog: port.default(4005),
      })
      .strict()
      .prefault({}),
    /** Where the private halves are written for the gateway's dev config to read. */
    keyDir: z.string().default('.dev/keys'),
    /** Deliberate offset of the sandbox clock from the real one, for skew tests. */
    clockSkewMs: z.number().int().default(0),
    logLevel: z.enum(['silent', 'error', 'warn', 'info', 'debug']).default('warn'),
    exchange: z
      .object({
        tokenTtlSeconds: z.number().int().min(1).default(180),
        tier: z.enum(EXCHANGE_TIERS).default('T1'),
        /** Per-class replacements of the published limits: a lower one makes upstream throttle first, 'off' lifts it (benchmarks). */
        limits: z
          .partialRecord(
            z.enum(EXCHANGE_LIMIT_CLASSES),
            z.union([
              z.literal('off'),
              z.object({ limit: z.int().positive(), perSeconds: z.number().positive() }).strict(),
            ]),
          )
          .default({}),
        /** Path segments of `POST /v1/<processor>/deposits`; spec 4.1 names checkout and hides the other as <processor_a>. */
        depositProcessors: z
          .array(z.string().regex(/^[a-z0-9-]+$/))
          .min(1)
          .default(['checkout', 'processor-a']),
        /** More binary contracts (open) after the fixture's, for tests that need many symbols. */
        extraGames: z
          .array(
            z
              .object({
                league: z.string().regex(/^[a-z0-9]+$/),
                away: z.string().regex(/^[a-z0-9]+$/),
                home: z.string().regex(/^[a-z0-9]+$/),
                date: z.iso.date(),
                /** The event the contract belongs to (`eventAttributes.eventId`, `metadata.eventSlug`); default its own game. Several markets of one event share it. */
                eventId: z
                  .string()
                  .regex(/^[a-z0-9-]+$/)
                  .optional(),
              })
              .strict(),
          )
          .default([]),
        clients: z
          .array(
            z
              .object({
                clientId: z.string().min(1),
                firm: z.string().min(1),
                users: z.array(z.string().min(1)).min(1),
                scopes: z.array(z.enum(UPSTREAM_SCOPES)).default([...UPSTREAM_SCOPES]),
              })
              .strict(),
          )
          .default([]),
      })
      .strict()
      .prefault({}),
    /** The exchange's gRPC streams (upstream-facts, operator's streaming rules); each figure configurable. */
    grpc: z
      .object({
        /** Loaded at run time: every .proto under it, services found by published name (drop official files in). */
        protoDir: z.string().min(1).default('proto'),
        /** Concurrent streams per firm, pooled across every streaming call. */
        maxStreamsPerFirm: z.int().positive().default(20),
        maxSymbolsPerSubscription: z.int().positive().default(1000),
        /** Client-to-server messages per firm, averaged over `ingressWindowSeconds`. */
        ingressPerSecond: z.number().positive().default(100),
        ingressWindowSeconds: z.int().positive().default(60),
        /** Heartbeat interval of order and drop-copy streams (market data: `state.marketDataStreams.heartbeatMs`). */
        heartbeatMs: z.int().positive().default(5_000),
        /** Records the drop-copy log retains for replay, and records per replayed batch. */
        dropCopyRetention: z.int().positive().default(100_000),
        dropCopyBatchSize: z.int().positive().default(100),
      })
      .strict()
      .prefault({}),
    catalog: z
      .object({
        /** upstream-facts: the catalog gateway allows 20 requests/s per client address ('off' lifts it, e.g. for benchmarks). */
        requestsPerSecondPerAddress: z.union([z.literal('off'), z.number().positive()]).default(20),
      })
      .strict()
      .prefault({}),
    retail: z
      .object({
        keys: z.array(z.object({ name: z.string().min(1), keyId: z.uuid() }).strict()).default([]),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type SandboxConfig = z.infer<typeof SandboxConfigSchema>;
export type SandboxConfigInput = z.input<typeof SandboxConfigSchema>;
export type UpstreamScope = (typeof UPSTREAM_SCOPES)[number];
export { UPSTREAM_SCOPES };
