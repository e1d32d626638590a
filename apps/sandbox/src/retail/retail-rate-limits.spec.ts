import { RETAIL_WINDOW_MS, RetailLimiter } from './retail-rate-limits.js';

describe(RetailLimiter.name, () => {
  let now = 1_000_000;
  const sut = new RetailLimiter(() => now);
  beforeEach(() => {
    sut.reset();
    sut.perKey.limit = 'off'; // the spec 8 windows alone; the per-key second has its own test
  });

  it('lets 20 requests of one key through in any second, refuses the 21st, and counts keys apart', () => {
    sut.perKey.limit = 20;
    for (let i = 0; i < 20; i++) expect(sut.take('k', ['all']).allowed).toBe(true);
    expect(sut.take('k', ['all'])).toEqual({ allowed: false, bucket: 'key', retryAfterSeconds: 1 });
    expect(sut.take('other', ['all']).allowed).toBe(true);
    now += 1_000;
    expect(sut.take('k', ['all']).allowed).toBe(true);
  });

  it('refuses the 56th open-orders request within 10 s, and says when one frees up', () => {
    for (let i = 0; i < 55; i++) expect(sut.take('k', ['openOrders', 'all']).allowed).toBe(true);
    now += 4_000;
    expect(sut.take('k', ['openOrders', 'all'])).toEqual({
      allowed: false,
      bucket: 'openOrders',
      retryAfterSeconds: 6,
    });
    now += RETAIL_WINDOW_MS - 4_000;
    expect(sut.take('k', ['openOrders', 'all']).allowed).toBe(true);
  });

  it('counts every route against all, and a refused request against nothing', () => {
    sut.limits.all = 2;
    sut.limits.create = 1;
    expect(sut.take('k', ['create', 'all']).allowed).toBe(true);
    expect(sut.take('k', ['create', 'all']).allowed).toBe(false);
    expect(sut.take('k', ['all']).allowed).toBe(true);
    expect(sut.take('k', ['getOrder', 'all'])).toMatchObject({ allowed: false, bucket: 'all' });
    expect(sut.take('other', ['all']).allowed).toBe(true);
  });
});
