import { ExchangeSearchWindow } from './exchange-search-window.js';

const NOW = Date.parse('2026-11-27T12:00:00.000Z');
/** An answer dated by an exchange clock `offsetMs` from ours, asked at `sentAt` and received 20 ms later. */
const reply = (offsetMs: number, sentAt = NOW) => ({
  headers: { date: new Date(sentAt + 10 + offsetMs).toUTCString() },
  sentAt,
  receivedAt: sentAt + 20,
});

describe(ExchangeSearchWindow.name, () => {
  it('starts a window by our clock until an answer dates the exchange', () => {
    const sut = new ExchangeSearchWindow();
    expect(sut.start(NOW, 30_000, 60_000)).toBe(NOW - 90_000);
  });

  it('proves nothing when the exchange clock runs behind the window it was given', () => {
    const sut = new ExchangeSearchWindow();
    const start = sut.start(NOW, 30_000, 60_000);
    expect(sut.covers(reply(-180_000), start, NOW, 30_000)).toBe(false);
  });

  it('sets the next window by the exchange clock its answers show, which then covers the call', () => {
    const sut = new ExchangeSearchWindow();
    sut.observe(reply(-180_000));
    const start = sut.start(NOW, 30_000, 60_000);
    expect(start).toBeLessThanOrEqual(NOW - 180_000 - 90_000 + 1_000);
    expect(sut.covers(reply(-180_000), start, NOW, 30_000)).toBe(true);
  });

  it('proves nothing from an answer without a Date', () => {
    const sut = new ExchangeSearchWindow();
    expect(sut.covers({ headers: {}, sentAt: NOW, receivedAt: NOW + 20 }, 0, NOW, 30_000)).toBe(false);
  });
});
