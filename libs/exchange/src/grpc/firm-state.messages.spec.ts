import { applyPositionChanges } from './firm-state.messages.js';
import { EXCHANGE_INSTRUMENT_STATE_POLICY } from './instrument-state.feed.js';
import { EXCHANGE_POSITIONS_POLICY } from './position-changes.service.js';

const position = (symbol: string, netPosition: string) => ({ account: 'firms/F/users/a', symbol, netPosition });

describe(applyPositionChanges.name, () => {
  it('keeps the latest position per symbol: a later change replaces the earlier one, a new symbol is added', () => {
    const held = { positions: [position('x', '1'), position('y', '2')] };
    const update = {
      positionChanges: [
        { position: position('x', '3') },
        { position: position('z', '1') },
        { position: position('x', '4') },
      ],
    };
    expect(applyPositionChanges(held, update)).toEqual({
      positions: [position('x', '4'), position('y', '2'), position('z', '1')],
    });
    expect(held.positions[0]).toEqual(position('x', '1')); // the cached snapshot is not changed in place
  });

  it("as the hub's fold of exchange.positions: the same state, without changing the snapshot it started from", () => {
    const held = { positions: [position('x', '1'), position('y', '2')] };
    const update = { positionChanges: [{ position: position('x', '3') }, { position: position('z', '1') }] };
    const fold = EXCHANGE_POSITIONS_POLICY.fold!();
    fold.reset(held);
    fold.apply(update);
    expect(fold.data()).toEqual(applyPositionChanges(held, update));
    expect(held.positions).toEqual([position('x', '1'), position('y', '2')]);
  });
});

describe('exchange.instrumentState fold', () => {
  it('replaces the state of the instruments an update names and leaves the others', () => {
    const held = {
      instruments: [
        { symbol: 'x', state: 'INSTRUMENT_STATE_OPEN' },
        { symbol: 'y', state: 'INSTRUMENT_STATE_OPEN' },
      ],
    };
    const fold = EXCHANGE_INSTRUMENT_STATE_POLICY.fold!();
    fold.reset(held);
    fold.apply({ instruments: [{ symbol: 'y', state: 'INSTRUMENT_STATE_HALTED' }] });
    expect(fold.data()).toEqual({
      instruments: [
        { symbol: 'x', state: 'INSTRUMENT_STATE_OPEN' },
        { symbol: 'y', state: 'INSTRUMENT_STATE_HALTED' },
      ],
    });
  });
});
