import { CoreConfigSchema, type CoreConfigInput } from '../config/config.schema.js';
import { Bulkheads, InFlightLimitedError, type InFlightCall } from './bulkheads.js';

const HASH = (n: number) => `sha256:${String(n).padStart(64, '0')}`;
const configOf = (extra: Partial<CoreConfigInput> = {}) =>
  CoreConfigSchema.parse({
    environment: 'development',
    http: { connectionsPerOrigin: 8 },
    teams: [{ id: 'desk' }, { id: 'ops' }],
    clients: [
      { id: 'a1', team: 'desk', keyHash: HASH(1) },
      { id: 'a2', team: 'desk', keyHash: HASH(2) },
      { id: 'b1', team: 'ops', keyHash: HASH(3), bulkhead: { perClient: 1, maxBlockSeconds: 120 } },
    ],
    ...extra,
  });

const call = (client: string, team: string, more: Partial<InFlightCall> = {}): InFlightCall => ({
  origin: 'http://retail',
  surface: 'retail',
  lane: 'ordinary',
  client,
  team,
  ...more,
});
const refusal = async (run: () => Promise<unknown>): Promise<InFlightLimitedError> => {
  try {
    await run();
  } catch (error) {
    if (error instanceof InFlightLimitedError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};
/** No waiting by default in these cases, so a refusal is immediate. */
const noWait = { queueMs: 0 };

describe(Bulkheads.name, () => {
  it('splits each pool evenly among the teams by default, so no team can take another one’s connections', () => {
    const sut = new Bulkheads(configOf());
    expect(sut.capsOf({ lane: 'ordinary', team: 'desk', client: 'a1' })).toEqual({ team: 4, client: 4 });
    expect(sut.capsOf({ lane: 'blocking', team: 'desk', client: 'a1' })).toEqual({ team: 8, client: 8 });
    expect(sut.maxBlockSeconds('a1')).toBe(30);
  });

  it('refuses the team past its bound whichever of its clients asks, naming the bound, and frees the place on release', async () => {
    const sut = new Bulkheads(configOf({ bulkheads: noWait }));
    const held = await Promise.all([
      sut.enter(call('a1', 'desk')),
      sut.enter(call('a1', 'desk')),
      sut.enter(call('a2', 'desk')),
      sut.enter(call('a2', 'desk')),
    ]);
    const error = await refusal(() => sut.enter(call('a2', 'desk')));
    expect(error.extensions).toMatchObject({ cap: 'bulkheads.perTeam', limit: 4, surface: 'retail' });
    expect(error.headers['Retry-After']).toBe('1');
    // Another team, another origin and the blocking lane are other bulkheads.
    await sut.enter(call('b1', 'ops'));
    await sut.enter(call('a1', 'desk', { origin: 'http://exchange' }));
    await sut.enter(call('a1', 'desk', { lane: 'blocking' }));
    held[0]!();
    held[0]!();
    await sut.enter(call('a2', 'desk'));
    await expect(sut.enter(call('a2', 'desk'))).rejects.toThrow(InFlightLimitedError);
  });

  it('applies per-client and per-team overrides, and never refuses a cancel', async () => {
    const sut = new Bulkheads(
      configOf({ bulkheads: noWait, teams: [{ id: 'desk', bulkhead: { blockingPerTeam: 1 } }, { id: 'ops' }] }),
    );
    await sut.enter(call('b1', 'ops'));
    expect((await refusal(() => sut.enter(call('b1', 'ops')))).extensions).toMatchObject({
      cap: 'bulkheads.perClient',
      limit: 1,
    });
    await sut.enter(call('b1', 'ops', { exempt: true }));
    await sut.enter(call('a1', 'desk', { lane: 'blocking' }));
    expect((await refusal(() => sut.enter(call('a2', 'desk', { lane: 'blocking' })))).extensions).toMatchObject({
      cap: 'bulkheads.blocking.perTeam',
      limit: 1,
      lane: 'blocking',
    });
    expect(sut.maxBlockSeconds('b1')).toBe(120);
  });

  it('lets a call past the bound wait in line for a place, then refuses it; another team passes the line', async () => {
    const sut = new Bulkheads(configOf({ bulkheads: { perClient: 1, queueMs: 60_000 } }));
    const first = await sut.enter(call('a1', 'desk'));
    let admitted = false;
    const second = sut.enter(call('a1', 'desk')).then((release) => ((admitted = true), release));
    await sut.enter(call('a2', 'desk')); // same team, other client with room: not held behind a1's line
    await sut.enter(call('b1', 'ops'));
    expect(admitted).toBe(false);
    first();
    (await second)();
    expect(admitted).toBe(true);
    const brief = new Bulkheads(configOf({ bulkheads: { perClient: 1, queueMs: 0 } }));
    await brief.enter(call('a1', 'desk'));
    // The client's Prefer: wait lets it wait longer than queueMs.
    const waiting = brief.enter(call('a1', 'desk'), 20);
    await expect(waiting).rejects.toMatchObject({ extensions: { cap: 'bulkheads.perClient', limit: 1 } });
  });

  it('bounds a pool of its owner per team, in line at most its wait, and names its bound in the refusal', async () => {
    const sut = new Bulkheads(configOf({ bulkheads: noWait }));
    const pool = { name: 'journal', cap: 'journal.readsPerTeam', perTeam: 1, waitMs: 60_000 };
    let finish = (): void => undefined;
    const first = sut.run(pool, 'desk', () => new Promise<string>((resolve) => (finish = () => resolve('first'))));
    const order: string[] = [];
    const second = sut.run(pool, 'desk', async () => order.push('second'));
    // Another team, and the team's calls to an origin, are other bulkheads.
    await sut.run(pool, 'ops', async () => order.push('ops'));
    await sut.enter(call('a1', 'desk'));
    expect(order).toEqual(['ops']);
    finish();
    expect(await first).toBe('first');
    await second;
    expect(order).toEqual(['ops', 'second']);
    const held = sut.run(pool, 'desk', () => new Promise<void>((resolve) => (finish = resolve)));
    const error = await refusal(() => sut.run({ ...pool, waitMs: 0 }, 'desk', async () => undefined));
    expect(error.extensions).toEqual({ cap: 'journal.readsPerTeam', limit: 1, surface: 'journal', lane: 'ordinary' });
    expect(error.headers['Retry-After']).toBe('1');
    finish();
    await held;
    expect(sut.snapshot().get('ordinary|journal|t|desk')).toBeUndefined();
  });

  it('takes configured defaults over the even split', () => {
    const sut = new Bulkheads(
      configOf({ bulkheads: { perTeam: 3, perClient: 2, blocking: { perTeam: 2, maxBlockSeconds: 10 } } }),
    );
    expect(sut.capsOf({ lane: 'ordinary', team: 'desk', client: 'a1' })).toEqual({ team: 3, client: 2 });
    expect(sut.capsOf({ lane: 'blocking', team: 'desk', client: 'a1' })).toEqual({ team: 2, client: 2 });
    expect(sut.maxBlockSeconds('a1')).toBe(10);
  });
});
