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
