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
    // claim_once (migration 5): an insert's clordId sent before under another key is found by this index, batches' included.
    statements: (s) => [
      `CREATE INDEX idempotency_participant_clord_ids ON ${s}.idempotency USING gin ((clord_ids::jsonb))`,
    ],
  },
  {
    version: 5,
    name: "an insert's claim of its key and of its clordIds, in one step",
    // IdempotencyStore.claimOnce: two inserts of one clordId under two keys claimed at once both read no
    // holder in their snapshots and both sent (a second order once the first finished). Each clordId's
    // advisory lock (per schema, participant, team), held to the claim's commit, orders them: the later reads
    // the earlier's record. VOLATILE under READ COMMITTED: each statement of the function reads what
    // committed before it (the lock's holder too); under a stricter isolation one snapshot would hide it,
    // so the function refuses to run there. A released claim's tombstone is no key's record: now() is the
    // statement's start, so one written during the lock wait still looks live ('gone': claimOnce asks again).
    statements: (s, role) => [
      `CREATE FUNCTION ${s}.claim_once(p_client_id text, p_key text, p_fingerprint text, p_operation text, p_clord_ids text,
         p_own_clord_ids text, p_participant text, p_team text, p_request text, p_claim_id text, p_ttl_secs float8, p_operations text[])
       RETURNS TABLE (outcome text, held json) LANGUAGE plpgsql VOLATILE AS $fn$
       DECLARE
         lock_key bigint;
         found_row ${s}.idempotency;
       BEGIN
         IF current_setting('transaction_isolation') <> 'read committed' THEN
           RAISE EXCEPTION 'claim_once needs READ COMMITTED, not %', current_setting('transaction_isolation');
         END IF;
         FOR lock_key IN SELECT DISTINCT hashtextextended(jsonb_build_array('${s}', p_participant, p_team, c)::text, 0)
             FROM jsonb_array_elements_text(p_own_clord_ids::jsonb) AS c ORDER BY 1 LOOP
           PERFORM pg_advisory_xact_lock(lock_key);
         END LOOP;
         SELECT * INTO found_row FROM ${s}.idempotency i
           WHERE i.client_id = p_client_id AND i.key = p_key AND i.expires_at >= now() AND i.state <> 'released';
         IF FOUND THEN RETURN QUERY SELECT 'key'::text, row_to_json(found_row); RETURN; END IF;
         SELECT * INTO found_row FROM ${s}.idempotency i
           WHERE i.participant = p_participant AND i.clord_ids::jsonb ?| ARRAY(SELECT jsonb_array_elements_text(p_own_clord_ids::jsonb))
             AND i.operation = ANY(p_operations) AND i.team = p_team AND i.state <> 'released' AND i.expires_at >= now()
             AND NOT (i.state = 'done' AND i.status >= 400)
           ORDER BY i.created_at LIMIT 1;
         IF FOUND THEN RETURN QUERY SELECT 'clordId'::text, row_to_json(found_row); RETURN; END IF;
         INSERT INTO ${s}.idempotency AS i (client_id, key, fingerprint, state, operation, clord_ids, participant, team, request, claim_id, created_at, updated_at, expires_at)
           VALUES (p_client_id, p_key, p_fingerprint, 'in_flight', p_operation, p_clord_ids, p_participant, p_team, p_request, p_claim_id, now(), now(), now() + make_interval(secs => p_ttl_secs))
           ON CONFLICT (client_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'in_flight', operation = EXCLUDED.operation, clord_ids = EXCLUDED.clord_ids,
             participant = EXCLUDED.participant, team = EXCLUDED.team, request = EXCLUDED.request, claim_id = EXCLUDED.claim_id, status = NULL, body = NULL, created_at = now(), updated_at = now(), expires_at = EXCLUDED.expires_at
           WHERE i.expires_at < now() AND (i.state <> 'released' OR i.claim_id IS DISTINCT FROM EXCLUDED.claim_id);
         IF FOUND THEN RETURN QUERY SELECT 'won'::text, NULL::json; RETURN; END IF;
         -- Lost to a claim of the key that committed meanwhile (its record), or met a tombstone (none).
         SELECT * INTO found_row FROM ${s}.idempotency i
           WHERE i.client_id = p_client_id AND i.key = p_key AND i.expires_at >= now() AND i.state <> 'released';
         IF FOUND THEN RETURN QUERY SELECT 'key'::text, row_to_json(found_row); RETURN; END IF;
         RETURN QUERY SELECT 'gone'::text, NULL::json;
       END $fn$`,
      `DO $$ BEGIN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN
          GRANT EXECUTE ON FUNCTION ${s}.claim_once(text, text, text, text, text, text, text, text, text, text, float8, text[]) TO ${role};
        END IF;
      END $$`,
    ],
  },
  {
    version: 6,
    name: 'the clordId index without a pending list',
    // claim_once's search for an earlier call of a clordId: with GIN's fast update (the default) each new
    // record waits in the index's pending list, which every search reads through until a vacuum merges it
    // (up to gin_pending_list_limit, 4 MB): 1.0 ms a claim at 40,000 records, 0.03 ms without, and 1.3 ms
    // a claim (77 % of PostgreSQL's time) in `npm run bench orders`. Each claim inserts one record, so
    // the list filled as fast as orders came, and the claim runs under its clordIds' locks.
    statements: (s) => [
      `ALTER INDEX ${s}.idempotency_participant_clord_ids SET (fastupdate = off)`,
      `SELECT gin_clean_pending_list('${s}.idempotency_participant_clord_ids'::regclass)`,
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
