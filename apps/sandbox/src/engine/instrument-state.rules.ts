import type { InstrumentState } from './engine.enums.js';

/** Spec 3.2, one predicate per question an operation asks of an instrument's state. */
const ENTRY: ReadonlySet<InstrumentState> = new Set([
  'INSTRUMENT_STATE_OPEN',
  'INSTRUMENT_STATE_PREOPEN',
  'INSTRUMENT_STATE_MATCH_AND_CLOSE_AUCTION',
]);

/** New orders (and replaces, which the spec calls modification) are accepted. */
export const allowsEntry = (state: InstrumentState): boolean => ENTRY.has(state);

/** Orders trade on entry; in PREOPEN and MATCH_AND_CLOSE_AUCTION they only rest until the auction. */
export const allowsMatching = (state: InstrumentState): boolean => state === 'INSTRUMENT_STATE_OPEN';

/** HALTED forbids cancels; CLOSED forbids them too ("no entry, modification, cancellation"). */
export const allowsCancel = (state: InstrumentState): boolean =>
  state !== 'INSTRUMENT_STATE_HALTED' && state !== 'INSTRUMENT_STATE_CLOSED';

/** PREOPEN uncrosses on the move to OPEN; MATCH_AND_CLOSE_AUCTION on any move out. */
export function auctionsOn(from: InstrumentState, to: InstrumentState): boolean {
  if (from === 'INSTRUMENT_STATE_PREOPEN') return to === 'INSTRUMENT_STATE_OPEN';
  return from === 'INSTRUMENT_STATE_MATCH_AND_CLOSE_AUCTION' && to !== from;
}
