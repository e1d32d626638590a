import { z } from 'zod';

const sqlName = z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'expected a lower-case SQL name');
const postgresUrl = z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL');

/**
 * The order journal and the idempotency records (issue 27). With `url` set they live in that
 * PostgreSQL database; without it, in an embedded PostgreSQL (PGlite) under `embeddedDir` running the
 * same SQL, so a first `npm start` needs no server.
 */
export const JournalSchema = z
  .object({
    /**
     * A benchmark and diagnostic switch, not an operating mode: false skips the idempotency records and
     * the journal on the order path (orders are sent as they come, unrecorded; no replay, no UNKNOWN
     * resolution), so `npm run bench exchange` can measure what they add. Default true; never turn it
     * off where orders matter.
     */
    enabled: z.boolean().default(true),
    /** The application's connection (as `appRole`, which may only insert and select journal records). */
    url: postgresUrl.optional(),
    /** The owner's connection, used only to run the migrations; defaults to `url`. */
    migrationUrl: postgresUrl.optional(),
    /** The schema holding the journal's tables. */
    schema: sqlName.default('journal'),
    /** The role the migrations grant INSERT and SELECT (no UPDATE, no DELETE) on the journal, when it exists. */
    appRole: sqlName.default('pmgw_app'),
    /** Where the embedded default keeps its data when no `url` is set. */
    embeddedDir: z.string().min(1).default('.dev/journal'),
    /** Connections in the pool. */
    poolSize: z.number().int().min(1).max(100).default(10),
    /** A journal write or idempotency read that takes longer fails: the order is refused (503). */
    statementTimeoutMs: z.number().int().positive().default(2_000),
    /** How long a finished call's answer is replayed for its Idempotency-Key (the draft asks at least 24 h). */
    keyTtlHours: z.number().positive().default(24),
    /** Order searches per minute the resolver of UNKNOWN outcomes may spend (of the exchange's 12). */
    resolveSearchesPerMinute: z.number().int().min(1).max(12).default(4),
    /** A call still in flight this long after its intent was recorded belongs to a stopped instance: its outcome is UNKNOWN. */
    inFlightStaleMs: z.number().int().positive().default(30_000),
    /**
     * An UNKNOWN exchange insert that neither the order stream nor a complete order search shows, this
     * long after its call ended, was not placed: the exchange rejects an order it has not processed
     * within 5 s of receiving it (its latency stopgap). The journal says so and the key's answer is 409
     * ORDER_NOT_PLACED (placing the order takes a new key). At least 10 s (twice the stopgap).
     */
    notPlacedAfterMs: z.number().int().min(10_000).default(30_000),
    /**
     * When the instance holds the exchange order stream for itself (resolving UNKNOWN inserts from it,
     * journaling its events) with no `/ws` client subscribed: `while-unknown` (default) opens it only
     * while an UNKNOWN insert awaits (one stream of the firm's 20 per instance, briefly), `always` holds
     * it for the participants the gateway trades (one stream per instance: raise
     * `streams.exchange.reserve` by the number of instances), `never` leaves it to the clients' topics.
     * It also decides the retail accounts' private order channel (RetailOrderChannel): `while-unknown`
     * holds it from each retail create or close-position until a minute after the last and while one
     * is UNKNOWN, `always` for every retail account from the start, `never` not at all.
     */
    orderStream: z.enum(['while-unknown', 'always', 'never']).default('while-unknown'),
  })
  .strict();

export type JournalConfig = z.infer<typeof JournalSchema>;
