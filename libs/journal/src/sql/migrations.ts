import type { SqlClient, SqlQuery } from './sql-client.js';

/** One versioned step of the schema; its statements run in one transaction, once per database. */
interface Migration {
  version: number;
  name: string;
  statements: (schema: string, appRole: string) => string[];
}

/**
 * The journal's schema, in order. A released migration is never edited: a change is a new version.
 * `order_events` is append-only three ways: the app role is granted INSERT and SELECT only, UPDATE and
 * DELETE are revoked from everyone, and a trigger refuses them even to the owner.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'order journal and idempotency records',
    statements: (s, role) => [
      `CREATE TABLE ${s}.order_events (
        seq bigint PRIMARY KEY,
        at timestamptz NOT NULL,
        kind text NOT NULL,
        clord_id text,
        order_id text,
        client_id text,
        team text,
        record text NOT NULL,
        prev_hash text NOT NULL,
        hash text NOT NULL
      )`,
      `CREATE INDEX order_events_clord_id ON ${s}.order_events (clord_id)`,
      `CREATE INDEX order_events_order_id ON ${s}.order_events (order_id)`,
      `CREATE INDEX order_events_at ON ${s}.order_events (at)`,
      `CREATE FUNCTION ${s}.order_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the order journal is append-only'; END $$`,
      `CREATE TRIGGER order_events_append_only BEFORE UPDATE OR DELETE ON ${s}.order_events
        FOR EACH ROW EXECUTE FUNCTION ${s}.order_events_append_only()`,
      `REVOKE UPDATE, DELETE, TRUNCATE ON ${s}.order_events FROM PUBLIC`,
      `CREATE TABLE ${s}.idempotency (
        client_id text NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        state text NOT NULL,
        operation text NOT NULL,
        clord_ids text NOT NULL,
        participant text,
        team text NOT NULL,
        status integer,
        body text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (client_id, key)
      )`,
      `CREATE INDEX idempotency_state ON ${s}.idempotency (state, updated_at)`,
      `DO $$ BEGIN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN
          GRANT USAGE ON SCHEMA ${s} TO ${role};
          GRANT SELECT, INSERT ON ${s}.order_events TO ${role};
          GRANT SELECT, INSERT, UPDATE, DELETE ON ${s}.idempotency TO ${role};
          GRANT SELECT ON ${s}.schema_migrations TO ${role};
        END IF;
      END $$`,
    ],
  },
  {
    version: 2,
    name: 'the request of an order call whose outcome may have to be found by its terms',
    // A retail order carries no client order id: an UNKNOWN one is found by its terms (market, intent, price, quantity).
    statements: (s) => [`ALTER TABLE ${s}.idempotency ADD COLUMN request text`],
  },
  {
    version: 3,
    name: 'the claim that holds a key',
    // A call that claimed a key and then sent nothing frees it by its own claim only: a retry's later claim of the key stays.
    statements: (s) => [`ALTER TABLE ${s}.idempotency ADD COLUMN claim_id text`],
  },
  {
    version: 4,
    name: 'the calls that sent a clordId, by participant',
    // IdempotencyStore.clordIdHolder: an insert's clordId sent before under another key is found by this index, batches' included.
    statements: (s) => [
      `CREATE INDEX idempotency_participant_clord_ids ON ${s}.idempotency USING gin ((clord_ids::jsonb))`,
    ],
  },
];

/** Applies every migration the database lacks, under an advisory lock so two instances starting together apply each once. */
export async function migrate(db: SqlClient, schema: string, appRole: string): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`pmgw-migrate:${schema}`]);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const applied = new Set(
      (await tx.query<{ version: number }>(`SELECT version FROM ${schema}.schema_migrations`)).map((row) =>
        Number(row.version),
      ),
    );
    const ran: number[] = [];
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      await apply(tx, migration, schema, appRole);
      ran.push(migration.version);
    }
    return ran;
  });
}

async function apply(tx: SqlQuery, migration: Migration, schema: string, appRole: string): Promise<void> {
  for (const statement of migration.statements(schema, appRole)) await tx.query(statement);
  await tx.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`, [
    migration.version,
    migration.name,
  ]);
}
