import { ALICE, ask, bid, BOB, ManualClock, OTHER_SYMBOL, SYMBOL } from './engine.harness.js';
import type { EngineEventKind } from './engine-events.js';
import { MatchingEngine } from './matching-engine.js';

describe(MatchingEngine.name, () => {
  let sut: MatchingEngine;
  let seen: { kind: EngineEventKind; symbol: string; seq: number; detail: string }[];

  beforeEach(() => {
    sut = new MatchingEngine({ clock: new ManualClock().read });
    seen = [];
    sut.on('execution', (e) =>
      seen.push({ kind: 'execution', symbol: e.symbol, seq: e.seq, detail: e.execution.type }),
    );
    sut.on('trade', (e) =>
      seen.push({ kind: 'trade', symbol: e.symbol, seq: e.seq, detail: `${e.trade.qty}@${e.trade.px}` }),
    );
    sut.on('book', (e) =>
      seen.push({ kind: 'book', symbol: e.symbol, seq: e.seq, detail: JSON.stringify([e.bids, e.offers]) }),
    );
    sut.on('position', (e) =>
      seen.push({
        kind: 'position',
        symbol: e.symbol,
        seq: e.seq,
        detail: `${e.position.account}:${e.position.netPosition}`,
      }),
    );
    sut.on('balance', (e) =>
      seen.push({
        kind: 'balance',
        symbol: e.symbol,
        seq: e.seq,
        detail: `${e.balance.account}:${e.balance.currentBalance}`,
      }),
    );
  });

  describe('events', () => {
    it('delivers executions, the trade, positions and balances, then one book update, in sequence', () => {
      sut.insert(ask(BOB, 2, 45));
      seen = [];

      sut.insert(bid(ALICE, 2, 45));

      expect(seen.map((e) => [e.kind, e.detail])).toEqual([
        ['execution', 'EXECUTION_TYPE_NEW'],
        ['execution', 'EXECUTION_TYPE_FILL'],
        ['position', `${ALICE}:2`],
        ['balance', `${ALICE}:-90`],
        ['execution', 'EXECUTION_TYPE_FILL'],
        ['position', `${BOB}:-2`],
        ['balance', `${BOB}:90`],
        ['trade', '2@45'],
        ['book', '[[],[]]'],
      ]);
      const seqs = seen.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
    });

    it('counts sequences per symbol', () => {
      sut.insert(bid(ALICE, 1, 40));
      sut.insert(bid(ALICE, 1, 40, { symbol: OTHER_SYMBOL }));

      expect(seen.filter((e) => e.symbol === SYMBOL).map((e) => e.seq)).toEqual([1, 2]);
      expect(seen.filter((e) => e.symbol === OTHER_SYMBOL).map((e) => e.seq)).toEqual([1, 2]);
    });

    it('lets a listener read the engine in its final state', () => {
      const states: string[] = [];
      sut.on('execution', (e) => states.push(sut.order(e.execution.order.id)?.state ?? ''));

      sut.insert(ask(BOB, 1, 45));
      sut.insert(bid(ALICE, 1, 45));

      expect(states.slice(-3)).toEqual(['ORDER_STATE_FILLED', 'ORDER_STATE_FILLED', 'ORDER_STATE_FILLED']);
    });

    it('emits a book update on a state change and stops delivering after unsubscribe', () => {
      const states: string[] = [];
      const stop = sut.on('book', (e) => states.push(e.state));

      sut.setState(SYMBOL, 'INSTRUMENT_STATE_HALTED');
      stop();
      sut.setState(SYMBOL, 'INSTRUMENT_STATE_OPEN');

      expect(states).toEqual(['INSTRUMENT_STATE_HALTED']);
    });

    it('still delivers to other listeners when one throws, then surfaces the error', () => {
      sut.on('execution', () => {
        throw new Error('listener bug');
      });

      expect(() => sut.insert(bid(ALICE, 1, 40))).toThrow('listener bug');
      expect(seen.map((e) => e.kind)).toEqual(['execution', 'book']);
    });
  });
});
