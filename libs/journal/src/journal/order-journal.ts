import { systemClock } from '@lib/core';
import { ChainVerifier, type ChainRow, GENESIS_HASH, chainHash } from '../chain/hash-chain.js';
import { canonicalJson } from '../chain/canonical-json.js';
import type { SqlClient, SqlQuery } from '../sql/sql-client.js';
import { isUniqueViolation, runSplittingRefusals } from '../sql/sql-errors.js';
import { textsByRowCount } from '../sql/texts-by-row-count.js';
import { type JournalEntry, type JournalRecord, madeOrder, provesOrder } from './journal-record.js';

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
/** How far before an order's answer its intent's record is looked for (the records of the calls in flight meanwhile). */
const INTENT_WINDOW = 10_000;

/** How long a record appended with `appendSoon` may wait for another append to share its write. */
const SOON_MS = 5;

/** How often a batch is chained again after another writer took its place (each retry reads the head anew). */
const MAX_CHAIN_RETRIES = 50;

/**
 * The append-only, hash-chained order journal. Appends made while a write is under way are written
 * together in the next batch: ONE multi-row INSERT (one round trip, no transaction, no lock) chained
 * after the head this writer last wrote or read. Instances sharing the database extend one chain
 * optimistically: `seq` is the primary key, so a batch whose place another writer took fails whole
 * (a unique violation), and is chained again after the head read anew. `append` resolves once the
 * records are committed (written ahead), and rejects when they are not.
 */
export class OrderJournal {
  private queue: Pending[] = [];
  private writing = false;
  /** The chain's head as this writer last wrote or read it; undefined: read it before the next write. */
  private head: { seq: number; hash: string } | undefined;
  /** The timer that writes records appended with `appendSoon` when no other append came to carry them. */
  private soon: NodeJS.Timeout | undefined;
  /** Batches written again after another writer took their place (for the bench and tests). */
  chainRetries = 0;
  /** The INSERT of a batch of n records: ten parameters a record. */
  private readonly insertText = textsByRowCount(
    (rows) =>
      `INSERT INTO ${this.schema}.order_events (seq, at, kind, clord_id, order_id, client_id, team, record, prev_hash, hash) VALUES ${Array.from(
        { length: rows },
        (_, row) => `(${Array.from({ length: 10 }, (_, i) => `$${row * 10 + i + 1}`).join(', ')})`,
      ).join(', ')}`,
  );

  constructor(
    private readonly db: SqlClient,
    private readonly schema: string,
    private readonly now: () => number = () => systemClock.wallNow(), // a stored row's stamp: the wall clock
  ) {}

  append(...entries: JournalEntry[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ entries, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  /**
   * A record nothing waits for (an order's `sent`): queued in order like any other, but it starts no
   * write of its own at once; it goes with the next append's write (an order's answer, about a round
   * trip later: one INSERT for both instead of two), or alone after SOON_MS. Resolves once committed.
   */
  appendSoon(...entries: JournalEntry[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ entries, resolve, reject });
      if (!this.writing && this.soon === undefined) {
        this.soon = setTimeout(() => {
          if (!this.writing) void this.drain();
        }, SOON_MS);
        this.soon.unref();
      }
    });
  }

  /** Resolves once every record appended so far has been written or has failed (an empty append goes last in the queue). */
  flush(): Promise<void> {
    return this.append().catch(() => undefined);
  }

  private async drain(): Promise<void> {
    clearTimeout(this.soon);
    this.soon = undefined;
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.nextBatch();
      // One append's value the server refuses fails the whole INSERT (nothing of it was written): its halves
      // are written again, each chained after the head read anew, so only that one fails.
      await runSplittingRefusals(
        batch,
        async (part) => {
          await this.write(part.flatMap((pending) => pending.entries));
          for (const pending of part) pending.resolve();
        },
        (pending, error) => pending.reject(error),
      );
    }
    this.writing = false;
  }

  /** A statement takes at most 65,535 parameters (ten a record): a long queue is written in several transactions. */
  private nextBatch(): Pending[] {
    let records = 0;
    let count = 0;
    while (
      count < this.queue.length &&
      (count === 0 || records + this.queue[count]!.entries.length <= MAX_RECORDS_PER_WRITE)
    ) {
      records += this.queue[count]!.entries.length;
      count++;
    }
    return this.queue.splice(0, count);
  }

  private async write(entries: JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    for (let attempt = 0; ; attempt++) {
      const head = this.head ?? (await this.readHead());
      const { text, values, last } = this.chained(head, entries);
      try {
        await this.db.query(text, values);
        this.head = last;
        return;
      } catch (error) {
        this.head = undefined;
        if (!isUniqueViolation(error) || attempt >= MAX_CHAIN_RETRIES) throw error;
        this.chainRetries++;
      }
    }
  }

  private async readHead(db: SqlQuery = this.db): Promise<{ seq: number; hash: string }> {
    const [head] = await db.query<{ seq: string | number; hash: string }>(
      `SELECT seq, hash FROM ${this.schema}.order_events ORDER BY seq DESC LIMIT 1`,
    );
    return head ? { seq: Number(head.seq), hash: head.hash } : { seq: 0, hash: GENESIS_HASH };
  }

  /** The batch's INSERT, chained after `head`. */
  private chained(
    head: { seq: number; hash: string },
    entries: JournalEntry[],
  ): { text: string; values: unknown[]; last: { seq: number; hash: string } } {
    let seq = head.seq;
    let prevHash = head.hash;
    const at = new Date(this.now()).toISOString();
    const values: unknown[] = [];
    for (const entry of entries) {
      seq++;
      const record = canonicalJson({
        seq,
        at,
        kind: entry.kind,
        clordId: entry.clordId,
        orderId: entry.orderId,
        clientId: entry.clientId,
        team: entry.team,
        data: entry.data ?? {},
      });
      const hash = chainHash(prevHash, seq, record);
      values.push(
        seq,
        at,
        entry.kind,
        entry.clordId ?? null,
        entry.orderId ?? null,
        entry.clientId ?? null,
        entry.team ?? null,
        record,
        prevHash,
        hash,
      );
      prevHash = hash;
    }
    return { text: this.insertText(entries.length), values, last: { seq, hash: prevHash } };
  }

  /**
   * Every record of one order, by the clordId it was sent with or the order id the exchange gave it: the
   * first `MAX_TIMELINE_RECORDS` (a clordId reused many times has many), `truncated` when there were more.
   */
  async timeline(by: {
    clordId?: string;
    orderId?: string;
  }): Promise<{ records: JournalRecord[]; truncated: boolean }> {
    const s = this.schema;
    const limit = MAX_TIMELINE_RECORDS + 1;
    const rows =
      by.clordId !== undefined
        ? await this.db.query<EventRow>(
            `SELECT ${COLUMNS} FROM ${s}.order_events WHERE clord_id = $1 OR order_id IN (SELECT order_id FROM ${s}.order_events WHERE clord_id = $1 AND order_id IS NOT NULL) ORDER BY seq LIMIT ${limit}`,
            [by.clordId],
          )
        : await this.orderRows(by.orderId, limit);
    const records = rows.slice(0, MAX_TIMELINE_RECORDS).map(toRecord);
    return {
      records: merged(records, await this.callsOpenedElsewhere(records)),
      truncated: rows.length > MAX_TIMELINE_RECORDS,
    };
  }

  /**
   * By order id: the order's records and those under its clordId. Once an answer gave the order to a team
   * (provesOrder), only that team's and the records naming no team of this order (its stream events, the
   * kill switch's) or of no order (a cancel reject by clordId). Another team's records, under a clordId it
   * used too or naming the id in calls refused 404, and the stream events of its orders under that
   * clordId, are never this order's (the reading route drops them), and must not fill its first
   * MAX_TIMELINE_RECORDS: a team writing refused orders under a desk's clordId pushed the desk's cancel
   * and fills out of its order's timeline.
   */
  private async orderRows(orderId: string | undefined, limit: number): Promise<EventRow[]> {
    const s = this.schema;
    const sender = (await this.givenRecords(orderId === undefined ? [] : [orderId]))[0]?.team ?? null;
    const ofOrder = '($2::text IS NULL OR team = $2 OR (team IS NULL AND (order_id IS NULL OR order_id = $1)))';
    return this.db.query<EventRow>(
      `SELECT ${COLUMNS} FROM ${s}.order_events WHERE (order_id = $1 OR clord_id IN (SELECT clord_id FROM ${s}.order_events WHERE order_id = $1 AND clord_id IS NOT NULL AND ${ofOrder})) AND ${ofOrder} ORDER BY seq LIMIT ${limit}`,
      [orderId, sender],
    );
  }

  /**
   * The records of the calls an order's records come from whose `received` record names neither its
   * clordId nor its order id (a retail create or close-position: the order id comes with the answer),
   * found by the call's request id and client, among the records shortly before the call's first record here.
   */
  private async callsOpenedElsewhere(records: readonly JournalRecord[]): Promise<JournalRecord[]> {
    const opened = new Set(records.filter((r) => r.kind === 'received').map((r) => requestIdOf(r)));
    const calls = new Map<string, { clientId: string; at: string }>();
    for (const record of records) {
      const requestId = requestIdOf(record);
      if (requestId === undefined || record.clientId === undefined || opened.has(requestId) || calls.has(requestId))
        continue;
      calls.set(requestId, { clientId: record.clientId, at: record.at });
    }
    const found: JournalRecord[] = [];
    for (const [requestId, call] of [...calls].slice(0, MAX_CALLS_FOLLOWED)) {
      const until = new Date(call.at);
      const rows = await this.db.query<EventRow>(
        `SELECT ${COLUMNS} FROM ${this.schema}.order_events WHERE at >= $1 AND at <= $2 AND client_id = $3 AND record LIKE $4 ORDER BY seq`,
        [
          new Date(until.getTime() - CALL_WINDOW_MS).toISOString(),
          until.toISOString(),
          call.clientId,
          `%${escapeLike(`"requestId":${JSON.stringify(requestId)}`)}%`,
        ],
      );
      found.push(...rows.map(toRecord));
    }
    return found;
  }

  /**
   * What an order was asked to be: the `received` record of the call whose answer named this order id
   * (the insert or create body as the gateway took it), found among the `INTENT_WINDOW` records written
   * before that answer; undefined when the journal holds no such pair.
   */
  async intentOf(orderId: string): Promise<JournalRecord | undefined> {
    const s = this.schema;
    const [answer] = await this.db.query<EventRow>(
      `SELECT ${COLUMNS} FROM ${s}.order_events WHERE order_id = $1 AND kind = 'answer' ORDER BY seq LIMIT 1`,
      [orderId],
    );
    const answered = answer && toRecord(answer);
    const requestId = answered?.data?.requestId;
    if (!answered?.clientId || typeof requestId !== 'string') return undefined;
    const rows = await this.db.query<EventRow>(
      `SELECT ${COLUMNS} FROM ${s}.order_events WHERE kind = 'received' AND seq < $1 AND seq >= $2 AND client_id = $3 ORDER BY seq DESC`,
      [answered.seq, answered.seq - INTENT_WINDOW, answered.clientId],
    );
    return rows.map(toRecord).find((record) => record.data?.requestId === requestId);
  }

  /** The answer and resolution records that name these order ids: who was given each order (see provesOrder). */
  async givenRecords(orderIds: readonly string[]): Promise<JournalRecord[]> {
    if (orderIds.length === 0) return [];
    const rows = await this.db.query<EventRow>(
      `SELECT ${COLUMNS} FROM ${this.schema}.order_events WHERE order_id = ANY($1) AND kind IN ('answer', 'resolved') ORDER BY seq`,
      [[...orderIds]],
    );
    return rows.map(toRecord).filter(provesOrder);
  }

  /**
   * A call's `received` records under this client's key naming these clordIds, in the journal's order
   * (a retry of the call writes its own, later): the first one's seq is the call's place in the journal,
   * and the first of each clordId holds what the call sent for it (its body, or its batch item). A call
   * under a gateway key (`gateway:…`, not journaled) has none. Records are chained in the order they
   * were committed, by every instance alike; their `at` is the writing instance's wall clock, which
   * cannot be compared with another instance's or the database's.
   */
  async intents(clientId: string, key: string, clordIds: readonly string[]): Promise<JournalRecord[]> {
    if (clordIds.length === 0) return [];
    const rows = await this.db.query<EventRow>(
      `SELECT ${COLUMNS} FROM ${this.schema}.order_events WHERE kind = 'received' AND clord_id = ANY($1) AND client_id = $2 AND record LIKE $3 ORDER BY seq`,
      [[...clordIds], clientId, `%${escapeLike(`"idempotencyKey":${JSON.stringify(key)}`)}%`],
    );
    return rows.map(toRecord).filter((record) => record.data?.idempotencyKey === key);
  }

  /** Which of these order ids the journal shows a call made (see madeOrder): an order only cancelled or changed through the gateway is not one. */
  async madeOrderIds(orderIds: readonly string[]): Promise<Set<string>> {
    if (orderIds.length === 0) return new Set();
    const rows = await this.db.query<EventRow>(
      `SELECT ${COLUMNS} FROM ${this.schema}.order_events WHERE order_id = ANY($1) AND kind IN ('answer', 'resolved')`,
      [[...orderIds]],
    );
    return new Set(rows.map(toRecord).flatMap((record) => (madeOrder(record) ? [record.orderId!] : [])));
  }

  /** Records with `from <= at < to`, after `afterSeq`, at most `limit` (an export reads on in pages). */
  async range(from: Date, to: Date, afterSeq = 0, limit = PAGE): Promise<JournalRecord[]> {
    const rows = await this.db.query<EventRow>(
      `SELECT ${COLUMNS} FROM ${this.schema}.order_events WHERE at >= $1 AND at < $2 AND seq > $3 ORDER BY seq LIMIT $4`,
      [from.toISOString(), to.toISOString(), afterSeq, limit],
    );
    return rows.map(toRecord);
  }

  /** Walks the whole chain in seq order: every missing, reordered or altered record is named. */
  async verify(): Promise<ChainVerifier> {
    const verifier = new ChainVerifier();
    let after = 0;
    for (;;) {
      const rows = await this.db.query<EventRow>(
        `SELECT ${COLUMNS} FROM ${this.schema}.order_events WHERE seq > $1 ORDER BY seq LIMIT ${PAGE}`,
        [after],
      );
      for (const row of rows) verifier.check(chainRow(row));
      if (rows.length < PAGE) return verifier;
      after = Number(rows[rows.length - 1]!.seq);
    }
  }
}

function chainRow(row: EventRow): ChainRow {
  return {
    seq: Number(row.seq),
    at: new Date(row.at),
    kind: row.kind,
    clordId: row.clord_id,
    orderId: row.order_id,
    record: row.record,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

/** How far before a call's answer its `received` record is looked for: longer than a call of the order path lasts (the server's request timeout is 30 s by default). */
const CALL_WINDOW_MS = 2 * 60_000;
/** The most records one timeline answer holds: a client reusing a clordId without end cannot make it unbounded. */
export const MAX_TIMELINE_RECORDS = 1_000;
/** Calls of one order followed to their `received` record (an order has a create, a few changes and a cancel). */
const MAX_CALLS_FOLLOWED = 20;

const requestIdOf = (record: JournalRecord): string | undefined =>
  typeof record.data?.requestId === 'string' ? record.data.requestId : undefined;

/** A LIKE pattern's literal: its wildcards and escape character taken as themselves. */
const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Two sets of records as one, in chain order, each record once. */
function merged(records: readonly JournalRecord[], more: readonly JournalRecord[]): JournalRecord[] {
  if (more.length === 0) return [...records];
  const bySeq = new Map<number, JournalRecord>();
  for (const record of [...records, ...more]) bySeq.set(record.seq, record);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

function toRecord(row: EventRow): JournalRecord {
  const parsed = JSON.parse(row.record) as Omit<JournalRecord, 'hash'>;
  return { ...parsed, hash: row.hash };
}
