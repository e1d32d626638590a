import { ChainVerifier, type ChainRow, GENESIS_HASH, chainHash } from '../chain/hash-chain.js';
import { canonicalJson } from '../chain/canonical-json.js';
import type { SqlClient, SqlQuery } from '../sql/sql-client.js';
import type { JournalEntry, JournalRecord } from './journal-record.js';

interface Pending {
  entries: JournalEntry[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface EventRow {
  seq: string | number;
  at: Date;
  kind: string;
  clord_id: string | null;
  order_id: string | null;
  record: string;
  prev_hash: string;
  hash: string;
}

const COLUMNS = 'seq, at, kind, clord_id, order_id, record, prev_hash, hash';
const PAGE = 1_000;
const MAX_RECORDS_PER_WRITE = 1_000;

/**
 * The append-only, hash-chained order journal. Appends made while a write is under way are written
 * together in the next transaction, which takes an advisory lock, reads the chain's head and inserts
 * the batch after it: instances sharing the database extend one chain, one writer at a time.
 * `append` resolves once the records are committed (written ahead), and rejects when they are not.
 */
export class OrderJournal {
  private queue: Pending[] = [];
  private writing = false;

  constructor(
    private readonly db: SqlClient,
    private readonly schema: string,
    private readonly now: () => number = Date.now,
  ) {}

  append(...entries: JournalEntry[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ entries, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.nextBatch();
      try {
        await this.db.transaction((tx) => this.write(tx, batch.flatMap((pending) => pending.entries)));
        for (const pending of batch) pending.resolve();
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
    this.writing = false;
  }

  /** A statement takes at most 65,535 parameters (ten a record): a long queue is written in several transactions. */
  private nextBatch(): Pending[] {
    let records = 0;
    let count = 0;
    while (count < this.queue.length && (count === 0 || records + this.queue[count]!.entries.length <= MAX_RECORDS_PER_WRITE)) {
      records += this.queue[count]!.entries.length;
      count++;
    }
    return this.queue.splice(0, count);
  }

  private async write(tx: SqlQuery, entries: JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`pmgw-journal:${this.schema}`]);
    const [head] = await tx.query<{ seq: string | number; hash: string }>(`SELECT seq, hash FROM ${this.schema}.order_events ORDER BY seq DESC LIMIT 1`);
    let seq = head ? Number(head.seq) : 0;
    let prevHash = head?.hash ?? GENESIS_HASH;
    const at = new Date(this.now()).toISOString();
    const values: unknown[] = [];
    const rows: string[] = [];
    for (const entry of entries) {
      seq++;
      const record = canonicalJson({ seq, at, kind: entry.kind, clordId: entry.clordId, orderId: entry.orderId, clientId: entry.clientId, team: entry.team, data: entry.data ?? {} });
      const hash = chainHash(prevHash, seq, record);
      const base = values.length;
      rows.push(`(${Array.from({ length: 10 }, (_, i) => `$${base + i + 1}`).join(', ')})`);
      values.push(seq, at, entry.kind, entry.clordId ?? null, entry.orderId ?? null, entry.clientId ?? null, entry.team ?? null, record, prevHash, hash);
      prevHash = hash;
    }
    await tx.query(`INSERT INTO ${this.schema}.order_events (seq, at, kind, clord_id, order_id, client_id, team, record, prev_hash, hash) VALUES ${rows.join(', ')}`, values);
  }

  /** Every record of one order, by the clordId it was sent with or the order id the exchange gave it. */
  async timeline(by: { clordId?: string; orderId?: string }): Promise<JournalRecord[]> {
    const s = this.schema;
    const rows = by.clordId !== undefined
      ? await this.db.query<EventRow>(
          `SELECT ${COLUMNS} FROM ${s}.order_events WHERE clord_id = $1 OR order_id IN (SELECT order_id FROM ${s}.order_events WHERE clord_id = $1 AND order_id IS NOT NULL) ORDER BY seq`,
          [by.clordId],
        )
      : await this.db.query<EventRow>(
          `SELECT ${COLUMNS} FROM ${s}.order_events WHERE order_id = $1 OR clord_id IN (SELECT clord_id FROM ${s}.order_events WHERE order_id = $1 AND clord_id IS NOT NULL) ORDER BY seq`,
          [by.orderId],
        );
    return rows.map(toRecord);
  }

  /** Which of these order ids the journal already names (an answer, a resolution or a stream event). */
  async knownOrderIds(orderIds: readonly string[]): Promise<Set<string>> {
    if (orderIds.length === 0) return new Set();
    const rows = await this.db.query<{ order_id: string }>(`SELECT DISTINCT order_id FROM ${this.schema}.order_events WHERE order_id = ANY($1)`, [[...orderIds]]);
    return new Set(rows.map((row) => row.order_id));
  }

  /** Records with `from <= at < to`, after `afterSeq`, at most `limit` (an export reads on in pages). */
  async range(from: Date, to: Date, afterSeq = 0, limit = PAGE): Promise<JournalRecord[]> {
    const rows = await this.db.query<EventRow>(`SELECT ${COLUMNS} FROM ${this.schema}.order_events WHERE at >= $1 AND at < $2 AND seq > $3 ORDER BY seq LIMIT $4`, [from.toISOString(), to.toISOString(), afterSeq, limit]);
    return rows.map(toRecord);
  }

  /** Walks the whole chain in seq order: every missing, reordered or altered record is named. */
  async verify(): Promise<ChainVerifier> {
    const verifier = new ChainVerifier();
    let after = 0;
    for (;;) {
      const rows = await this.db.query<EventRow>(`SELECT ${COLUMNS} FROM ${this.schema}.order_events WHERE seq > $1 ORDER BY seq LIMIT ${PAGE}`, [after]);
      for (const row of rows) verifier.check(chainRow(row));
      if (rows.length < PAGE) return verifier;
      after = Number(rows[rows.length - 1]!.seq);
    }
  }
}

function chainRow(row: EventRow): ChainRow {
  return { seq: Number(row.seq), at: new Date(row.at), kind: row.kind, clordId: row.clord_id, orderId: row.order_id, record: row.record, prevHash: row.prev_hash, hash: row.hash };
}

function toRecord(row: EventRow): JournalRecord {
  const parsed = JSON.parse(row.record) as Omit<JournalRecord, 'hash'>;
  return { ...parsed, hash: row.hash };
}
