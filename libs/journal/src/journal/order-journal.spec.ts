import pg from 'pg';

import { JournalSchema } from '../config/journal.config.js';

import { type JournalDatabase, openJournalDatabase } from '../journal-database.js';
import { MAX_TIMELINE_RECORDS } from './order-journal.js';

/** A journal of its own schema on the test server. */
const openTestJournal = (schema: string, more: Record<string, unknown> = {}) =>
  openJournalDatabase(
    JournalSchema.parse({
      url: process.env.TEST_PG_APP_URL,
      migrationUrl: process.env.TEST_PG_URL,
      schema: `${schema}_${process.pid}`,
      poolSize: 2,
      ...more,
    }),
  );

describe('OrderJournal timeline (PostgreSQL)', () => {
  let database: JournalDatabase;

  beforeAll(async () => {
    database = await openTestJournal('j_timeline');
  });
  afterAll(() => database.close());

  it('answers at most MAX_TIMELINE_RECORDS of a clordId reused without end, the first ones, and says it is truncated', async () => {
    const entries = Array.from({ length: MAX_TIMELINE_RECORDS + 5 }, (_, i) => ({
      kind: 'received' as const,
      clordId: 'reused',
      clientId: 'bot',
      team: 'trading',
      data: { i },
    }));
    for (let i = 0; i < entries.length; i += 200) await database.journal.append(...entries.slice(i, i + 200));
    await database.journal.append({ kind: 'received', clordId: 'once', clientId: 'bot', team: 'trading' });

    const long = await database.journal.timeline({ clordId: 'reused' });
    expect(long.truncated).toBe(true);
    expect(long.records).toHaveLength(MAX_TIMELINE_RECORDS);
    expect(long.records[0].data).toEqual({ i: 0 });
    const short = await database.journal.timeline({ clordId: 'once' });
    expect(short).toEqual({ records: [expect.objectContaining({ clordId: 'once' })], truncated: false });
  });
});

describe('IdempotencyStore past its TTL (PostgreSQL)', () => {
  let database: JournalDatabase;

  beforeAll(async () => {
    database = await openTestJournal('j_ttl', { keyTtlHours: 1 / 3_600 }); // one second
  });
  afterAll(() => database.close());

  it('answers an expired key as gone, by key and by clordId, before any purge, and lets it be claimed anew', async () => {
    const claim = {
      clientId: 'bot',
      key: 'k-1',
      fingerprint: 'f-1',
      operation: 'insert',
      clordIds: ['ttl-1'],
      team: 'trading',
    };
    expect(await database.keys.claim(claim)).toBeNull();
    await database.keys.finish('bot', 'k-1', 200, '{"orderId":"o-1"}');
    expect(await database.keys.get('bot', 'k-1')).toMatchObject({ state: 'done', status: 200 });
    expect(await database.keys.byClordId('ttl-1', ['insert'])).toMatchObject({ key: 'k-1' });

    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(await database.keys.get('bot', 'k-1')).toBeNull();
    expect(await database.keys.byClordId('ttl-1', ['insert'])).toBeNull();
    expect(await database.keys.claim({ ...claim, fingerprint: 'f-2' })).toBeNull(); // taken over, not replayed
  });
});

describe('one value PostgreSQL refuses, in a batched write (PostgreSQL)', () => {
  let database: JournalDatabase;

  beforeAll(async () => {
    database = await openTestJournal('j_refused');
  });
  afterAll(() => database.close());

  // A NUL byte in a text column: PostgreSQL refuses it (22021), and with it the whole statement.
  const REFUSED = 'bad\u0000id';

  it('fails only the append that carries it: the records batched with it are written, and the chain holds', async () => {
    const entry = (clordId: string) => ({ kind: 'received' as const, clordId, clientId: 'bot', team: 'trading' });
    // Appended in one tick: the first starts a write, the next three wait for it and go together in one INSERT.
    const outcomes = await Promise.allSettled([
      database.journal.append(entry('first')),
      database.journal.append(entry('before')),
      database.journal.append(entry(REFUSED)),
      database.journal.append(entry('after')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    for (const clordId of ['first', 'before', 'after'])
      expect((await database.journal.timeline({ clordId })).records).toEqual([expect.objectContaining({ clordId })]);
    expect((await database.journal.verify()).breaks).toEqual([]);
  });

  it('fails only the idempotency claim that carries it: the claims batched with it are taken', async () => {
    const claim = (key: string) => ({
      clientId: 'bot',
      key,
      fingerprint: 'f',
      operation: 'insertOrder',
      clordIds: [],
      team: 'trading',
    });
    const outcomes = await Promise.allSettled([
      database.keys.claim(claim('k-first')),
      database.keys.claim(claim('k-before')),
      database.keys.claim(claim(REFUSED)),
      database.keys.claim(claim('k-after')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    for (const key of ['k-first', 'k-before', 'k-after'])
      expect(await database.keys.get('bot', key)).toEqual(expect.objectContaining({ key, state: 'in_flight' }));
  });
});

describe('IdempotencyStore.claimOnce (PostgreSQL)', () => {
  let database: JournalDatabase;
  let locker: pg.Client;
  const schema = `j_claim_once_${process.pid}`;
  const claim = (key: string, claimId: string, clordId = 'once-a') => ({
    clientId: 'bot',
    key,
    fingerprint: 'f',
    operation: 'exchange.insert',
    clordIds: [clordId],
    participant: 'firms/F/users/u',
    team: 'trading',
    claimId,
  });

  beforeAll(async () => {
    database = await openTestJournal('j_claim_once');
    locker = new pg.Client({ connectionString: process.env.TEST_PG_URL });
    await locker.connect();
  });
  afterAll(async () => {
    await locker?.end();
    await database?.close();
  });

  it('takes a key freed while it waited for its clordId lock: a tombstone written meanwhile is no live record', async () => {
    // Another call of the clordId holds its lock (its claim not committed yet).
    await locker.query('BEGIN');
    await locker.query(
      `SELECT pg_advisory_xact_lock(hashtextextended(jsonb_build_array($1::text, $2::text, $3::text, $4::text)::text, 0))`,
      [schema, 'firms/F/users/u', 'trading', 'once-a'],
    );
    const waiting = database.keys.claimOnce(claim('k-retry', 'retry'), ['once-a'], ['exchange.insert']);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the claim's statement has started and waits
    // The key's earlier claim, which sent nothing, is freed now (its tombstone: expires at once).
    await database.keys.releaseClaim('bot', 'k-retry', 'first');
    await locker.query('ROLLBACK');
    expect(await waiting).toEqual({ existing: null, holder: null });
    expect(await database.keys.get('bot', 'k-retry')).toEqual(
      expect.objectContaining({ state: 'in_flight', fingerprint: 'f' }),
    );
  });

  it('refuses to run under an isolation stricter than READ COMMITTED (one snapshot would hide an earlier claim)', async () => {
    await locker.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    try {
      await expect(
        locker.query(
          `SELECT * FROM ${schema}.claim_once('bot', 'k-rr', 'f', 'exchange.insert', '["once-rr"]', '["once-rr"]', 'firms/F/users/u', 'trading', NULL, 'rr', 60, ARRAY['exchange.insert'])`,
        ),
      ).rejects.toThrow(/claim_once needs READ COMMITTED/);
    } finally {
      await locker.query('ROLLBACK');
    }
  });

  it('answers the holder of a clordId another key of the team claimed', async () => {
    expect(await database.keys.claimOnce(claim('k-b1', 'b1', 'once-b'), ['once-b'], ['exchange.insert'])).toEqual({
      existing: null,
      holder: null,
    });
    const second = await database.keys.claimOnce(claim('k-b2', 'b2', 'once-b'), ['once-b'], ['exchange.insert']);
    expect(second).toEqual({ existing: null, holder: expect.objectContaining({ key: 'k-b1', state: 'in_flight' }) });
  });

  it('finds what the claim would, claiming nothing (findOnce: a call refused before its claim)', async () => {
    await database.keys.claimOnce(claim('k-f1', 'f1', 'once-f'), ['once-f'], ['exchange.insert']);
    const find = (key: string | undefined, team = 'trading', operations = ['exchange.insert']) =>
      database.keys.findOnce({ clientId: 'bot', key, participant: 'firms/F/users/u', team }, ['once-f'], operations);
    expect(await find('k-f1')).toEqual({ existing: expect.objectContaining({ key: 'k-f1' }), holder: null });
    for (const key of ['k-f2', undefined])
      expect(await find(key)).toEqual({ existing: null, holder: expect.objectContaining({ key: 'k-f1' }) });
    expect(await database.keys.get('bot', 'k-f2')).toBeNull();
    // Another team's call, or another operation's, holds nothing; nor does a call answered a refusal.
    expect(await find('k-f2', 'other')).toEqual({ existing: null, holder: null });
    expect(await find('k-f2', 'trading', ['retail.create'])).toEqual({ existing: null, holder: null });
    await database.keys.finish('bot', 'k-f1', 409, '{}');
    expect(await find('k-f2')).toEqual({ existing: null, holder: null });
  });
});

describe('IdempotencyStore.inFlightBefore (PostgreSQL)', () => {
  let database: JournalDatabase;
  const claim = (clientId: string, key: string, participant: string, operation = 'exchange.insert') => ({
    clientId,
    key,
    fingerprint: 'f',
    operation,
    clordIds: [],
    participant,
    team: 'trading',
    claimId: key,
  });
  const ALICE = 'firms/F/users/alice';
  const BOB = 'firms/F/users/bob';

  beforeAll(async () => {
    database = await openTestJournal('j_in_flight');
  });
  afterAll(() => database?.close());

  it('counts the in-flight calls of the clients, or acting for the owners, claimed by the cut-off; not answered ones, not cancels, not later ones', async () => {
    const keys = database.keys;
    await keys.claim(claim('desk', 'd1', ALICE));
    await keys.claim(claim('other-team', 'o1', ALICE)); // another team's client, on the shared participant
    await keys.claim(claim('other-team', 'o2', BOB));
    await keys.claim(claim('desk', 'd-cancel', ALICE, 'exchange.cancel'));
    await keys.claim(claim('desk', 'd-done', ALICE));
    await keys.finish('desk', 'd-done', 200, '{}');
    const ops = ['exchange.insert'];
    const first = await keys.inFlightBefore(ops, { clientIds: ['desk'], owners: [ALICE] }, undefined, 0);
    expect(first).toMatchObject({ count: 2, passed: true });
    expect(await keys.inFlightBefore(ops, { clientIds: ['desk'], owners: [] }, first.cutoff, 0)).toMatchObject({
      count: 1,
    });
    expect(await keys.inFlightBefore(ops, undefined, first.cutoff, 0)).toMatchObject({ count: 3 });
    // Claimed after the cut-off: counted only within its margin, which has not passed yet.
    await keys.claim(claim('desk', 'd-late', ALICE));
    expect(await keys.inFlightBefore(ops, { clientIds: ['desk'], owners: [] }, first.cutoff, 0)).toMatchObject({
      count: 1,
    });
    expect(await keys.inFlightBefore(ops, { clientIds: ['desk'], owners: [] }, first.cutoff, 60_000)).toMatchObject({
      count: 2,
      passed: false,
    });
    await keys.finish('desk', 'd1', 200, '{}');
    await keys.finish('desk', 'd-late', 200, '{}');
    expect(await keys.inFlightBefore(ops, { clientIds: ['desk'], owners: [] }, first.cutoff, 60_000)).toMatchObject({
      count: 0,
    });
  });
});
