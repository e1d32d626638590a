import { GatewayConfigSchema, type GatewayConfigInput } from '../config/config.schema.js';
import { Bulkheads, InFlightLimitedError, type InFlightCall } from './bulkheads.js';

const HASH = (n: number) => `sha256:${String(n).padStart(64, '0')}`;
const configOf = (extra: Partial<GatewayConfigInput> = {}) =>
  GatewayConfigSchema.parse({
    environment: 'development',
    environments: { development: { authUrl: 'http://127.0.0.1:1', exchangeUrl: 'http://127.0.0.1:1', grpcTarget: '127.0.0.1:1', retailUrl: 'http://127.0.0.1:1', catalogUrl: 'http://127.0.0.1:1' } },
    http: { connectionsPerOrigin: 8 },
    teams: [{ id: 'desk' }, { id: 'ops' }],
    clients: [
      { id: 'a1', team: 'desk', keyHash: HASH(1) },
      { id: 'a2', team: 'desk', keyHash: HASH(2) },
      { id: 'b1', team: 'ops', keyHash: HASH(3), bulkhead: { perClient: 1, maxBlockSeconds: 120 } },
    ],
    ...extra,
  });

const call = (client: string, team: string, more: Partial<InFlightCall> = {}): InFlightCall => ({ origin: 'http://retail', surface: 'retail', lane: 'ordinary', client, team, ...more });
const refusal = (run: () => unknown): InFlightLimitedError => {
  try {
    run();
  } catch (error) {
    if (error instanceof InFlightLimitedError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe(Bulkheads.name, () => {
  it('splits each pool evenly among the teams by default, so no team can take another one’s connections', () => {
    const sut = new Bulkheads(configOf());
    expect(sut.capsOf({ lane: 'ordinary', team: 'desk', client: 'a1' })).toEqual({ team: 4, client: 4 });
    expect(sut.capsOf({ lane: 'blocking', team: 'desk', client: 'a1' })).toEqual({ team: 8, client: 8 });
    expect(sut.maxBlockSeconds('a1')).toBe(30);
  });

  it('refuses the team past its bound whichever of its clients asks, naming the bound, and frees the place on release', () => {
    const sut = new Bulkheads(configOf());
    const held = [sut.enter(call('a1', 'desk')), sut.enter(call('a1', 'desk')), sut.enter(call('a2', 'desk')), sut.enter(call('a2', 'desk'))];
    const error = refusal(() => sut.enter(call('a2', 'desk')));
    expect(error.extensions).toMatchObject({ cap: 'bulkheads.perTeam', limit: 4, surface: 'retail' });
    expect(error.headers['Retry-After']).toBe('1');
    // Another team, another origin and the blocking lane are other bulkheads.
    expect(() => sut.enter(call('b1', 'ops'))).not.toThrow();
    expect(() => sut.enter(call('a1', 'desk', { origin: 'http://exchange' }))).not.toThrow();
    expect(() => sut.enter(call('a1', 'desk', { lane: 'blocking' }))).not.toThrow();
    held[0]!();
    held[0]!();
    expect(() => sut.enter(call('a2', 'desk'))).not.toThrow();
    expect(() => sut.enter(call('a2', 'desk'))).toThrow(InFlightLimitedError);
  });

  it('applies per-client and per-team overrides, and never refuses a cancel', () => {
    const sut = new Bulkheads(configOf({ teams: [{ id: 'desk', bulkhead: { blockingPerTeam: 1 } }, { id: 'ops' }] }));
    sut.enter(call('b1', 'ops'));
    expect(refusal(() => sut.enter(call('b1', 'ops'))).extensions).toMatchObject({ cap: 'bulkheads.perClient', limit: 1 });
    expect(() => sut.enter(call('b1', 'ops', { exempt: true }))).not.toThrow();
    sut.enter(call('a1', 'desk', { lane: 'blocking' }));
    expect(refusal(() => sut.enter(call('a2', 'desk', { lane: 'blocking' }))).extensions).toMatchObject({ cap: 'bulkheads.blocking.perTeam', limit: 1, lane: 'blocking' });
    expect(sut.maxBlockSeconds('b1')).toBe(120);
  });

  it('takes configured defaults over the even split', () => {
    const sut = new Bulkheads(configOf({ bulkheads: { perTeam: 3, perClient: 2, blocking: { perTeam: 2, maxBlockSeconds: 10 } } }));
    expect(sut.capsOf({ lane: 'ordinary', team: 'desk', client: 'a1' })).toEqual({ team: 3, client: 2 });
    expect(sut.capsOf({ lane: 'blocking', team: 'desk', client: 'a1' })).toEqual({ team: 2, client: 2 });
    expect(sut.maxBlockSeconds('a1')).toBe(10);
  });
});
