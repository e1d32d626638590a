import { MatchingEngine } from '../../../engine/index.js';
import { DropCopyLog } from './drop-copy-log.js';

const SYMBOL = 'aec-nfl-buf-kc-2026-11-22';
const ALICE = 'firms/FIRMA/users/alice';
const CAROL = 'firms/FIRMB/users/carol';

describe(DropCopyLog.name, () => {
  let engine: MatchingEngine;
  beforeEach(() => {
    engine = new MatchingEngine({ clock: () => 1_800_000_000_000 });
  });

  function cross(): void {
    engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_SELL',
      orderQty: 1,
      price: 40,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: CAROL,
    });
    engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_BUY',
      orderQty: 1,
      price: 40,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: ALICE,
    });
  }

  it('records executions, the trade with both executions and positions, in one sequence', () => {
    const sut = new DropCopyLog(engine, 1_000);
    cross();
    const kinds = sut.after(0).map((record) => record.kind);
    expect(kinds.filter((kind) => kind === 'execution')).toHaveLength(4); // NEW + FILL for each side
    const trade = sut.after(0).find((record) => record.kind === 'trade');
    expect(trade).toMatchObject({
      firms: ['firms/FIRMA', 'firms/FIRMB'],
      trade: { executions: [{ aggressor: true }, { aggressor: false }] },
    });
    expect(sut.after(0).map((record) => record.seq)).toEqual(Array.from({ length: sut.head }, (_, i) => i + 1));
  });

  it('replays after a position, and knows which positions it no longer holds', () => {
    const sut = new DropCopyLog(engine, 10);
    for (let i = 0; i < 5; i++) cross();
    expect(sut.head).toBeGreaterThan(11);
    expect(sut.oldestResumable).toBeGreaterThan(0);
    expect(sut.after(sut.head - 2).map((record) => record.seq)).toEqual([sut.head - 1, sut.head]);
    expect(sut.after(sut.oldestResumable)[0].seq).toBe(sut.oldestResumable + 1);
  });

  it('records instrument state changes as public records', () => {
    const sut = new DropCopyLog(engine, 10);
    engine.setState(SYMBOL, 'INSTRUMENT_STATE_HALTED');
    expect(sut.after(0)).toEqual([
      expect.objectContaining({
        kind: 'instrument',
        firms: [],
        instrument: expect.objectContaining({ symbol: SYMBOL, state: 'INSTRUMENT_STATE_HALTED' }),
      }),
    ]);
  });
});
