import { retryAfterOf } from './retry-after.js';

describe(retryAfterOf.name, () => {
  const now = Date.parse('Mon, 02 Nov 2026 10:00:00 GMT');

  it('reads delta-seconds and HTTP dates (RFC 9110 §10.2.3)', () => {
    expect(retryAfterOf('3', now)).toBe(3);
    expect(retryAfterOf(' 0 ', now)).toBe(0);
    expect(retryAfterOf('Mon, 02 Nov 2026 10:00:05 GMT', now)).toBe(5);
    expect(retryAfterOf('Mon, 02 Nov 2026 09:59:00 GMT', now)).toBe(0);
  });

  it('answers undefined when absent or unreadable', () => {
    expect(retryAfterOf(undefined, now)).toBeUndefined();
    expect(retryAfterOf('', now)).toBeUndefined();
    expect(retryAfterOf('soon', now)).toBeUndefined();
  });
});
