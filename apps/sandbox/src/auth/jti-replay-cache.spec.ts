import { JtiReplayCache } from './jti-replay-cache.js';

describe(JtiReplayCache.name, () => {
  it('refuses an id seen within the retention window', () => {
    const sut = new JtiReplayCache(300_000);
    expect(sut.remember('a', 0)).toBe(true);
    expect(sut.remember('a', 299_999)).toBe(false);
  });

  it('accepts the id again once the window has passed, and forgets expired ids', () => {
    const sut = new JtiReplayCache(300_000);
    sut.remember('a', 0);
    sut.remember('b', 100_000);
    expect(sut.remember('a', 300_000)).toBe(true);
    expect(sut.size).toBe(2);
    sut.remember('c', 400_000);
    expect(sut.size).toBe(2);
  });

  it('still refuses ids remembered out of time order (a clock moved backwards)', () => {
    const sut = new JtiReplayCache(1_000);
    sut.remember('late', 10_000);
    sut.remember('early', 0);
    expect(sut.remember('late', 10_500)).toBe(false);
    expect(sut.remember('early', 999)).toBe(false);
  });
});
