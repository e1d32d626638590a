import { JournalSchema } from '../config/journal.config.js';

import { type JournalDatabase, openJournalDatabase } from '../journal-database.js';
import { MAX_TIMELINE_RECORDS } from './order-journal.js';

describe('OrderJournal timeline (PostgreSQL)', () => {
  let database: JournalDatabase;

  beforeAll(async () => {
    const schema = `j_timeline_${process.pid}`;
    const config = JournalSchema.parse({
      url: process.env.TEST_PG_APP_URL,
      migrationUrl: process.env.TEST_PG_URL,
      schema,
      poolSize: 2,
    });
    database = await openJournalDatabase(config);
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
    const config = JournalSchema.parse({
      url: process.env.TEST_PG_APP_URL,
      migrationUrl: process.env.TEST_PG_URL,
      schema: `j_ttl_${process.pid}`,
      poolSize: 2,
      keyTtlHours: 1 / 3_600, // one second
    });
    database = await openJournalDatabase(config);
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
    expect(await database.keys.byClordId('ttl-1')).toMatchObject({ key: 'k-1' });

    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(await database.keys.get('bot', 'k-1')).toBeNull();
    expect(await database.keys.byClordId('ttl-1')).toBeNull();
    expect(await database.keys.claim({ ...claim, fingerprint: 'f-2' })).toBeNull(); // taken over, not replayed
  });
});
