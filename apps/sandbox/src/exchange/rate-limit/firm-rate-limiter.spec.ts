import { FirmRateLimiter } from './firm-rate-limiter.js';

describe(FirmRateLimiter.name, () => {
  it('lets a firm list instruments 6 times at once on T1, then once every 10 s', () => {
    const sut = new FirmRateLimiter('T1');
    const answers = Array.from({ length: 7 }, () => sut.take('instruments', 'FIRM', 0));
    expect(answers.filter((a) => a.ok)).toHaveLength(6);
    expect(answers[6]).toEqual({ ok: false, retryAfterMs: 10_000 });
    expect(sut.take('instruments', 'FIRM', 10_000).ok).toBe(true);
    expect(sut.take('instruments', 'FIRM', 10_000).ok).toBe(false);
  });

  it('keeps firms and limit classes apart', () => {
    const sut = new FirmRateLimiter('T1');
    for (let i = 0; i < 6; i++) sut.take('instruments', 'A', 0);
    expect(sut.take('instruments', 'A', 0).ok).toBe(false);
    expect(sut.take('instruments', 'B', 0).ok).toBe(true);
    expect(sut.take('book', 'A', 0).ok).toBe(true);
  });

  it('scales order entry with the tier', () => {
    const inserts = (tier: 'T1' | 'T4') => {
      const sut = new FirmRateLimiter(tier);
      return Array.from({ length: 500 }, () => sut.take('order-entry', 'F', 0)).filter((a) => a.ok).length;
    };
    expect(inserts('T1')).toBe(30);
    expect(inserts('T4')).toBe(400);
  });

  it('takes overrides: a lower limit, or none at all', () => {
    const sut = new FirmRateLimiter('T1', { book: 'off', instruments: { limit: 2, perSeconds: 60 } });
    expect(Array.from({ length: 1000 }, () => sut.take('book', 'F', 0)).every((a) => a.ok)).toBe(true);
    expect([1, 2, 3].map(() => sut.take('instruments', 'F', 0).ok)).toEqual([true, true, false]);
  });
});
