import { INSTRUMENT_STATES } from './engine.enums.js';
import { ManualClock, SYMBOL } from './engine.harness.js';
import { instrumentsFixture } from './instruments.fixture.js';
import { MatchingEngine } from './matching-engine.js';

describe(MatchingEngine.name, () => {
  describe('instruments fixture', () => {
    it('is the same on every call, with unique symbols and every instrument state', () => {
      const instruments = instrumentsFixture();

      expect(instrumentsFixture()).toEqual(instruments);
      expect(new Set(instruments.map((i) => i.symbol)).size).toBe(instruments.length);
      expect(new Set(instruments.map((i) => i.state))).toEqual(new Set(INSTRUMENT_STATES));
      expect(instruments.filter((i) => i.state === 'INSTRUMENT_STATE_OPEN').length).toBeGreaterThan(
        instruments.length / 2,
      );
    });

    it('describes a binary contract priced in cents', () => {
      const instrument = instrumentsFixture().find((i) => i.symbol === SYMBOL);

      expect(instrument).toMatchObject({
        priceScale: '2',
        tickSize: 1,
        baseCurrency: 'USD',
        priceLimit: { low: 1, high: 99, lowSet: true, highSet: true },
        startDate: { year: 2026, month: 11, day: 8 },
        expirationDate: { year: 2026, month: 11, day: 23 },
        eventAttributes: {
          question: 'Will KC beat BUF on 2026-11-22?',
          eventId: 'nfl-buf-kc-2026-11-22',
          payoutValue: '100',
        },
      });
    });

    it('serves copies, so state changes go through setState and stamp updateTime', () => {
      const clock = new ManualClock();
      const sut = new MatchingEngine({ clock: clock.read });
      const copy = sut.instrument(SYMBOL);
      if (copy) copy.state = 'INSTRUMENT_STATE_HALTED';

      expect(sut.instrument(SYMBOL)?.state).toBe('INSTRUMENT_STATE_OPEN');
      sut.setState(SYMBOL, 'INSTRUMENT_STATE_HALTED');
      expect(sut.instrument(SYMBOL)).toMatchObject({ state: 'INSTRUMENT_STATE_HALTED', updateTime: clock.now });
    });
  });
});
