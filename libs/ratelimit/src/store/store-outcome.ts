import type { GcraOutcome } from '../gcra/gcra.js';

/** A decision as a store computed it, before it is named for callers. */
export interface StoreOutcome extends GcraOutcome {
  /** The refusal came from an upstream cool-down, not from an empty bucket. */
  coolDown: boolean;
}

/** State of one cell for the admin view. */
export interface CellState {
  /** Tokens in the cell now. */
  level: number;
  /** Milliseconds left of a cool-down on the cell's bucket (0: none). */
  coolDownMs: number;
}
