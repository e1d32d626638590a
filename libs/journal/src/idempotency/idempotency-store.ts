import type { SqlClient } from '../sql/sql-client.js';
import { StatementBatcher } from '../sql/statement-batcher.js';
import { textsByRowCount } from '../sql/texts-by-row-count.js';

/** Claims (or finishes) in one statement at most: 9 parameters each, well under PostgreSQL's 65,535. */
const MAX_BATCH = 500;

interface Finish {
  clientId: string;
  key: string;
  status: number;
  body: string;
}

/** in_flight: the intent is recorded, no answer yet; unknown: sent, outcome not known; done: the answer to replay. */
export type IdempotencyState = 'in_flight' | 'unknown' | 'done';

/** What a call claims its key with. */
export interface IdempotencyClaim {
  clientId: string;
  key: string;
  fingerprint: string;
  operation: string;
  clordIds: readonly string[];
  participant?: string;
  team: string;
  /** The request (secrets removed), kept for the calls whose UNKNOWN outcome is found by its terms (retail). */
  request?: unknown;
  /**
   * This call's own name for its claim (a random id): a call that sent nothing frees the key by it
   * (`releaseClaim`), even when it cannot tell whether its claim was written (the answer was lost).
   */
  claimId?: string;
}

export interface IdempotencyRecord extends IdempotencyClaim {
  state: IdempotencyState;
  status: number | null;
  /** The answer's body (done), or why the outcome is unknown (unknown). */
  body: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** How long ago the record last changed, by the database's clock, when it was read (only from `unresolved`). */
  ageMs?: number;
}

interface Row {
  client_id: string;
  key: string;
  fingerprint: string;
  state: IdempotencyState;
  operation: string;
  clord_ids: string;
  participant: string | null;
  team: string;
  status: number | null;
  body: string | null;
  request: string | null;
  created_at: Date;
  updated_at: Date;
  age_ms?: number;
}

/**
 * Idempotency records in PostgreSQL: the claim is one INSERT … ON CONFLICT, so two instances
 * receiving the same key at once cannot both send. An expired record is taken over by the next claim.
 */
export class IdempotencyStore {
  private readonly claims = new StatementBatcher<IdempotencyClaim, boolean>(
    (claim) => claimKey(claim.clientId, claim.key),
    (claims) => this.insertClaims(claims),
    MAX_BATCH,
  );
  private readonly finishes = new StatementBatcher<Finish, void>(
    (finish) => claimKey(finish.clientId, finish.key),
    (finishes) => this.updateFinished(finishes),
    MAX_BATCH,
  );
  /** The claims' INSERT for n claims: $1 the TTL, then nine parameters a claim. Its takeover rule (ON CONFLICT … WHERE) is claim_once's too (migration 5): change both. */
  private readonly insertClaimsText = textsByRowCount((claims) => {
    const rows = Array.from({ length: claims }, (_, row) => {
      const p = (i: number) => `$${1 + row * 9 + i}`;
      return `(${p(1)}, ${p(2)}, ${p(3)}, 'in_flight', ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)}, now(), now(), now() + make_interval(secs => $1))`;
    });
    return `INSERT INTO ${this.schema}.idempotency AS i (client_id, key, fingerprint, state, operation, clord_ids, participant, team, request, claim_id, created_at, updated_at, expires_at)
       VALUES ${rows.join(', ')}
       ON CONFLICT (client_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'in_flight', operation = EXCLUDED.operation, clord_ids = EXCLUDED.clord_ids,
         participant = EXCLUDED.participant, team = EXCLUDED.team, request = EXCLUDED.request, claim_id = EXCLUDED.claim_id, status = NULL, body = NULL, created_at = now(), updated_at = now(), expires_at = EXCLUDED.expires_at
       WHERE i.expires_at < now() AND (i.state <> 'released' OR i.claim_id IS DISTINCT FROM EXCLUDED.claim_id)
       RETURNING client_id, key`;
  });
  /** The finishes' UPDATE for n answers: four parameters an answer. */
  private readonly updateFinishedText = textsByRowCount((finishes) => {
    const rows = Array.from(
      { length: finishes },
      (_, row) => `($${row * 4 + 1}::text, $${row * 4 + 2}::text, $${row * 4 + 3}::integer, $${row * 4 + 4}::text)`,
    );
    return `UPDATE ${this.schema}.idempotency AS i SET state = 'done', status = v.status, body = v.body, updated_at = now()
       FROM (VALUES ${rows.join(', ')}) AS v (client_id, key, status, body) WHERE i.client_id = v.client_id AND i.key = v.key AND i.state <> 'released'`;
  });

  constructor(
    private readonly db: SqlClient,
    private readonly schema: string,
    private readonly ttlMs: number,
  ) {}

  /** `null` when this call now owns the key (state in_flight), else the record that holds it. */
  async claim(claim: IdempotencyClaim, tries = 3): Promise<IdempotencyRecord | null> {
    if (await this.claims.submit(claim)) return null;
    const existing = await this.get(claim.clientId, claim.key);
    if (existing) return existing;
    // Gone between the two statements (released, expired): claim again, a few times at most (a claim
    // released already, see releaseClaim, can never win its key).
    if (tries <= 1) throw keyFreedError();
    return this.claim(claim, tries - 1);
  }

  /** One INSERT … ON CONFLICT for every claim of the batch: the keys it returns were won (new, or taken over once expired). */
  private async insertClaims(claims: readonly IdempotencyClaim[]): Promise<(claim: IdempotencyClaim) => boolean> {
    const values: unknown[] = [this.ttlMs / 1000];
    for (const claim of claims)
      values.push(
        claim.clientId,
        claim.key,
        claim.fingerprint,
        claim.operation,
        JSON.stringify(claim.clordIds),
        claim.participant ?? null,
        claim.team,
        claim.request === undefined ? null : JSON.stringify(claim.request),
        claim.claimId ?? null,
      );
    const won = await this.db.query<{ client_id: string; key: string }>(this.insertClaimsText(claims.length), values);
    const keys = new Set(won.map((row) => claimKey(row.client_id, row.key)));
    return (claim) => keys.has(claimKey(claim.clientId, claim.key));
  }

  /** The key's record while it holds (an expired one is as gone as a purged one: the key may be claimed anew). */
  async get(clientId: string, key: string): Promise<IdempotencyRecord | null> {
    const [row] = await this.db.query<Row>(
      `SELECT * FROM ${this.schema}.idempotency WHERE client_id = $1 AND key = $2 AND expires_at >= now()`,
      [clientId, key],
    );
    return row ? toRecord(row) : null;
  }

  /**
   * An insert's claim of its key and of its `ownClordIds` (the client's, not the ones the gateway assigns) for `participant`, in one statement
   * (`claim_once`, migration 5): the exchange takes a clordId again once its order is finished, as a second
   * order (upstream-facts "Order safety"), so a team sends one only once a key lifetime, whatever key carries
   * it (another team's use of a clordId never blocks this team's). `existing`: the key's own record (a
   * retry); `holder`: the earliest live record of another call of the team that sent one of the clordIds as
   * one of `operations` (a call answered a refusal, 4xx or 5xx, holds nothing); neither: this call won the
   * key. Each clordId's lock is held to the claim's commit, so of two claims at once the later reads the
   * earlier's record.
   */
  async claimOnce(
    claim: IdempotencyClaim & { participant: string },
    ownClordIds: readonly string[],
    operations: readonly string[],
    tries = 3,
  ): Promise<{ existing: IdempotencyRecord | null; holder: IdempotencyRecord | null }> {
    const [row] = await this.db.query<{ outcome: 'key' | 'clordId' | 'won' | 'gone'; held: Row | null }>(
      `SELECT * FROM ${this.schema}.claim_once($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        claim.clientId,
        claim.key,
        claim.fingerprint,
        claim.operation,
        JSON.stringify(claim.clordIds),
        JSON.stringify(ownClordIds),
        claim.participant,
        claim.team,
        claim.request === undefined ? null : JSON.stringify(claim.request),
        claim.claimId ?? null,
        this.ttlMs / 1000,
        [...operations],
      ],
    );
    const held = row?.held ? toRecord(row.held) : null;
    if (row?.outcome === 'key') return { existing: held, holder: null };
    if (row?.outcome === 'clordId') return { existing: null, holder: held };
    if (row?.outcome === 'won') return { existing: null, holder: null };
    // Gone: a tombstone met (this claim's own, freed already: it can never win its key; or one written while
    // the claim waited for its locks: the next statement's clock sees it expired), as claim() after its tries.
    if (tries <= 1) throw keyFreedError();
    return this.claimOnce(claim, ownClordIds, operations, tries - 1);
  }

  /**
   * What `claimOnce` would find, read without claiming anything (for a call refused before its claim): the
   * key's live record (`existing`; no key: none), else the holder of one of `ownClordIds` by claim_once's
   * rule (migration 5: change both). One statement, no lock: a claim committing meanwhile may be missed, as a read is.
   */
  async findOnce(
    claim: { clientId: string; key?: string; participant: string; team: string },
    ownClordIds: readonly string[],
    operations: readonly string[],
  ): Promise<{ existing: IdempotencyRecord | null; holder: IdempotencyRecord | null }> {
    const rows = await this.db.query<Row & { found: 'key' | 'clordId' }>(
      `SELECT 'key' AS found, i.* FROM ${this.schema}.idempotency i
         WHERE i.client_id = $1 AND i.key = $2 AND i.expires_at >= now() AND i.state <> 'released'
       UNION ALL
       (SELECT 'clordId' AS found, i.* FROM ${this.schema}.idempotency i
         WHERE i.participant = $3 AND i.clord_ids::jsonb ?| $5::text[] AND i.operation = ANY($6) AND i.team = $4
           AND i.state <> 'released' AND i.expires_at >= now() AND NOT (i.state = 'done' AND i.status >= 400)
         ORDER BY i.created_at LIMIT 1)`,
      [claim.clientId, claim.key ?? null, claim.participant, claim.team, [...ownClordIds], [...operations]],
    );
    const key = rows.find((row) => row.found === 'key');
    if (key) return { existing: toRecord(key), holder: null };
    const holder = rows.find((row) => row.found === 'clordId');
    return { existing: null, holder: holder ? toRecord(holder) : null };
  }

  /**
   * The latest record of a call of one of `operations` that sent this clordId (the lookup route: the
   * inserts, not a later cancel that named the order by it), of one team when `team` is given.
   */
  async byClordId(clordId: string, operations: readonly string[], team?: string): Promise<IdempotencyRecord | null> {
    const [row] = await this.db.query<Row>(
      `SELECT * FROM ${this.schema}.idempotency WHERE clord_ids LIKE $1 AND operation = ANY($2) AND ($3::text IS NULL OR team = $3) AND expires_at >= now() ORDER BY created_at DESC LIMIT 1`,
      [`%${escapeLike(JSON.stringify(clordId))}%`, [...operations], team ?? null],
    );
    return row ? toRecord(row) : null;
  }

  /**
   * The unfinished calls (in flight or UNKNOWN, of every team and client) of these operations that sent
   * one of these clordIds for this participant: the exchange takes a clordId again once its order is
   * closed, so each of them may own an order that clordId names.
   */
  async unfinishedWith(
    participant: string,
    clordIds: readonly string[],
    operations: readonly string[],
  ): Promise<IdempotencyRecord[]> {
    if (clordIds.length === 0) return [];
    const rows = await this.db.query<Row>(
      `SELECT * FROM ${this.schema}.idempotency
       WHERE participant = $1 AND clord_ids::jsonb ?| $2::text[] AND operation = ANY($3) AND state IN ('in_flight', 'unknown') AND expires_at >= now()`,
      [participant, [...clordIds], [...operations]],
    );
    return rows.map(toRecord);
  }

  /** The answer to replay from now on (finishes arriving together are one UPDATE). */
  async finish(clientId: string, key: string, status: number, body: string): Promise<void> {
    await this.finishes.submit({ clientId, key, status, body });
  }

  private async updateFinished(finishes: readonly Finish[]): Promise<() => void> {
    const values: unknown[] = [];
    for (const finish of finishes) values.push(finish.clientId, finish.key, finish.status, finish.body);
    await this.db.query(this.updateFinishedText(finishes.length), values);
    return () => undefined;
  }

  /**
   * The call was sent and its outcome is not known. A key that holds its answer already (the call
   * finished meanwhile) keeps it: false then, and there is nothing to resolve.
   */
  async markUnknown(clientId: string, key: string, reason: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE ${this.schema}.idempotency SET state = 'unknown', body = $3, updated_at = now() WHERE client_id = $1 AND key = $2 AND state NOT IN ('done', 'released') RETURNING key`,
      [clientId, key, reason],
    );
    return rows.length > 0;
  }

  /**
   * A call a stopped instance left in flight is UNKNOWN from now (its final time counts from here): the
   * record as it is now, or undefined when the call finished meanwhile (nothing to resolve).
   */
  async unknownNow(record: IdempotencyRecord): Promise<IdempotencyRecord | undefined> {
    if (record.state !== 'in_flight') return record;
    if (!(await this.markUnknown(record.clientId, record.key, 'silent'))) return undefined;
    return (await this.get(record.clientId, record.key)) ?? record;
  }

  /** The call was not sent (refused by a gateway rule, or not processed upstream): the key is free again. */
  async release(clientId: string, key: string): Promise<void> {
    await this.db.query(
      `DELETE FROM ${this.schema}.idempotency WHERE client_id = $1 AND key = $2 AND state <> 'done'`,
      [clientId, key],
    );
  }

  /**
   * A call that sent nothing frees the key it claimed as `claimId`, whatever became of the record since
   * (an instance may have taken it as UNKNOWN once stale), whether or not the claim had been written.
   * Another claim of the key (a retry's) is never touched.
   *
   * A fence, not a DELETE: the claim's answer was lost, so its INSERT may still be on its way (queued on a
   * stalled server, its connection's timeout given up on it). A DELETE that ran first deleted nothing, and
   * the late claim then held the key for good: the retry the 503 invited got 409, then PENDING for an
   * order never sent. So the release leaves a tombstone of its claim (state `released`, expired at once,
   * so every reader of live records skips it): the late INSERT meets the key's row and waits for it, and
   * the claim's ON CONFLICT takes a tombstone over only for another claim (a retry's), never its own.
   * Tombstones stay RELEASED_KEPT_MINUTES past their release before the purge removes them.
   */
  async releaseClaim(clientId: string, key: string, claimId: string): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.schema}.idempotency AS i (client_id, key, fingerprint, state, operation, clord_ids, team, claim_id, created_at, updated_at, expires_at)
       VALUES ($1, $2, '', 'released', '', '[]', '', $3, now(), now(), now())
       ON CONFLICT (client_id, key) DO UPDATE SET state = 'released', status = NULL, body = NULL, updated_at = now(), expires_at = now()
       WHERE i.claim_id = $3 AND i.state <> 'done'`,
      [clientId, key, claimId],
    );
  }

  /** The outcome of an UNKNOWN call, found: true when this call settled it (another instance may have first). */
  async resolve(clientId: string, key: string, status: number, body: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE ${this.schema}.idempotency SET state = 'done', status = $3, body = $4, updated_at = now() WHERE client_id = $1 AND key = $2 AND state NOT IN ('done', 'released') RETURNING key`,
      [clientId, key, status, body],
    );
    return rows.length > 0;
  }

  /** Records past their lifetime go (a key is kept `keyTtlHours`). */
  async purgeExpired(): Promise<void> {
    await this.db.query(
      `DELETE FROM ${this.schema}.idempotency WHERE expires_at < now() AND (state <> 'released' OR updated_at < now() - make_interval(mins => ${RELEASED_KEPT_MINUTES}))`,
    );
  }

  /**
   * Calls of `operations` still in flight (claimed, no answer yet) of `of` (every call: undefined; else the
   * calls of those clients, and those acting for those participants or retail accounts), claimed no later
   * than `cutoff` plus `marginMs`, on the database's clock (every instance's claims carry it); `cutoff`
   * undefined: now, returned for the next ask. `passed`: the database's clock is past that instant, so no
   * later claim can count.
   */
  async inFlightBefore(
    operations: readonly string[],
    of: { clientIds: readonly string[]; owners: readonly string[] } | undefined,
    cutoff: string | undefined,
    marginMs: number,
  ): Promise<{ count: number; cutoff: string; passed: boolean }> {
    const [row] = await this.db.query<{ count: number; cutoff: string; passed: boolean }>(
      `WITH c AS (SELECT coalesce($3::timestamptz, now()) AS at, make_interval(secs => $4) AS margin)
       SELECT (SELECT count(*)::int FROM ${this.schema}.idempotency
                WHERE state = 'in_flight' AND operation = ANY($1)
                  AND ($2::text[] IS NULL OR client_id = ANY($2) OR participant = ANY($5))
                  AND created_at <= c.at + c.margin) AS count,
              c.at::text AS cutoff, now() >= c.at + c.margin AS passed
       FROM c`,
      [[...operations], of ? [...of.clientIds] : null, cutoff ?? null, marginMs / 1000, of ? [...of.owners] : []],
    );
    if (!row) throw new Error('the in-flight count returned no row');
    return { count: Number(row.count), cutoff: row.cutoff, passed: row.passed };
  }

  /** Orders whose outcome must be found: unknown ones, and ones left in flight by a stopped instance. */
  async unresolved(operations: readonly string[], staleMs: number, limit = 200): Promise<IdempotencyRecord[]> {
    const rows = await this.db.query<Row>(
      `SELECT *, extract(epoch FROM now() - updated_at)::float8 * 1000 AS age_ms FROM ${this.schema}.idempotency
       WHERE operation = ANY($1) AND (state = 'unknown' OR (state = 'in_flight' AND updated_at < now() - make_interval(secs => $2)))
       ORDER BY created_at LIMIT $3`,
      [[...operations], staleMs / 1000, limit],
    );
    return rows.map(toRecord);
  }
}

/** A claim that met its key freed (released, expired) on each of its tries: claim and claimOnce. */
const keyFreedError = (): Error =>
  new Error('the idempotency key could not be claimed: it was freed between claim and read three times');

/** How long a released claim's tombstone outlives its release (see releaseClaim): far past any statement's bound. */
const RELEASED_KEPT_MINUTES = 10;

const claimKey = (clientId: string, key: string): string => `${clientId}\u0000${key}`;

/** A literal for LIKE: its wildcards and escape character taken as themselves. */
const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function toRecord(row: Row): IdempotencyRecord {
  return {
    clientId: row.client_id,
    key: row.key,
    fingerprint: row.fingerprint,
    state: row.state,
    operation: row.operation,
    clordIds: JSON.parse(row.clord_ids) as string[],
    participant: row.participant ?? undefined,
    team: row.team,
    ...(row.request === null || row.request === undefined ? {} : { request: JSON.parse(row.request) as unknown }),
    status: row.status,
    body: row.body,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    ...(row.age_ms === undefined ? {} : { ageMs: row.age_ms }),
  };
}
