import { type JournalDatabase, JournalSchema, openJournalDatabase } from '@lib/journal';

import { testJournal } from './support/stack.js';

/**
 * A claim whose answer was lost, released by its own claim id, stays released even when its INSERT
 * arrives after the release (real PostgreSQL, the run's server). A probe showed the race through the
 * whole wire: the server stopped (SIGSTOP) for 1.5 s mid-burst, the claim's INSERT queued on it, the
 * call answered 503 `processed: false` and released its claim; on SIGCONT the release's DELETE ran
 * first (nothing to delete), then the INSERT committed, and the key stayed held by a call that sent
 * nothing: the retry got 409, then 202 PENDING, then ORDER_NOT_PLACED, and could never place the order
 * under its key. Here the same order of statements, made deterministic: release first, late claim after.
 */

const claim = (claimId: string) => ({
  clientId: 'bot',
  key: 'k-1',
  fingerprint: 'f',
  operation: 'exchange.insert',
  clordIds: ['c-1'],
  participant: 'firms/TESTFIRM/users/alice',
  team: 'trading',
  claimId,
});

describe('a released claim fences its own late INSERT', () => {
  let journal: JournalDatabase;
  beforeAll(async () => {
    journal = await openJournalDatabase(JournalSchema.parse(testJournal()));
  });
  afterAll(() => journal?.close());

  it("a late claim of a released claim id never takes the key; a retry's claim does", async () => {
    const { keys } = journal;
    // The call gave up on its claim (its answer lost) and released it: the release reaches the database first.
    await keys.releaseClaim('bot', 'k-1', 'claim-lost');
    expect(await keys.get('bot', 'k-1')).toBeNull();
    // Its INSERT arrives late: it must not hold the key.
    await expect(keys.claim(claim('claim-lost'))).rejects.toThrow(/could not be claimed/);
    expect(await keys.get('bot', 'k-1')).toBeNull();
    // The purge keeps the fence (its claim may still be on its way).
    await keys.purgeExpired();
    await expect(keys.claim(claim('claim-lost'))).rejects.toThrow(/could not be claimed/);
    // The client's retry, with its own claim, wins the key, once.
    expect(await keys.claim(claim('claim-retry'))).toBeNull();
    expect(await keys.get('bot', 'k-1')).toMatchObject({ state: 'in_flight' });
    expect(await keys.claim(claim('claim-third'))).toMatchObject({ state: 'in_flight' });
    // A late release of the lost claim never touches the retry's.
    await keys.releaseClaim('bot', 'k-1', 'claim-lost');
    expect(await keys.get('bot', 'k-1')).toMatchObject({ state: 'in_flight' });
  });

  it('a claim written and then released frees the key for the next claim', async () => {
    const { keys } = journal;
    const own = { ...claim('claim-a'), key: 'k-2' };
    expect(await keys.claim(own)).toBeNull();
    await keys.releaseClaim('bot', 'k-2', 'claim-a');
    expect(await keys.get('bot', 'k-2')).toBeNull();
    expect(await keys.unresolved(['exchange.insert'], 0)).not.toContainEqual(expect.objectContaining({ key: 'k-2' }));
    expect(await keys.markUnknown('bot', 'k-2', 'silent')).toBe(false);
    expect(await keys.claim({ ...own, claimId: 'claim-b' })).toBeNull();
    expect(await keys.get('bot', 'k-2')).toMatchObject({ state: 'in_flight' });
  });
});
