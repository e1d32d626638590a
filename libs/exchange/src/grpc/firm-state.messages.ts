import { ACCOUNT_POLICY, type TopicPolicy } from '@lib/fanout';

/** An exchange record as decoded (camelCase, int64 as strings): only the fields the fold reads are typed. */
type Keyed<K extends string> = Record<string, unknown> & Record<K, string>;

/** An instrument's trading state (DropCopyAPI `Instrument`): symbol, state, update_time, non_tradable. */
export type InstrumentRecord = Keyed<'symbol'>;

/** `exchange.instrumentState`: snapshot and updates share the shape; an update's instruments replace the held ones. */
export interface InstrumentsPayload {
  instruments: InstrumentRecord[];
}

/** A participant's position in one symbol (DropCopyAPI `Position`). */
export type PositionRecord = Keyed<'account' | 'symbol'>;

export interface PositionChange {
  position: PositionRecord;
  changeTime?: unknown;
}

/** `exchange.positions.<participant>` snapshot: the latest position per symbol. */
export interface PositionsSnapshot {
  positions: PositionRecord[];
}

/** ...and its updates: the changes of one upstream batch, oldest first. */
export interface PositionsUpdate {
  positionChanges: PositionChange[];
}

/** `held` with each of `fresh` replacing the entry of the same symbol (or appended): the latest state wins. */
function latestBySymbol<T extends { symbol: string }>(held: readonly T[], fresh: readonly T[]): T[] {
  const bySymbol = new Map(held.map((entry) => [entry.symbol, entry]));
  for (const entry of fresh) bySymbol.set(entry.symbol, entry);
  return [...bySymbol.values()];
}

export function applyInstruments(snapshot: InstrumentsPayload, update: InstrumentsPayload): InstrumentsPayload {
  return { instruments: latestBySymbol(snapshot.instruments, update.instruments) };
}

export function applyPositionChanges(snapshot: PositionsSnapshot, update: PositionsUpdate): PositionsSnapshot {
  return {
    positions: latestBySymbol(
      snapshot.positions,
      update.positionChanges.map((change) => change.position),
    ),
  };
}

/** Never conflated or dropped (a halt or a fill must not be skipped); late joiners get the state with every update folded in. */
export function foldingPolicy<S, U>(apply: (snapshot: S, update: U) => S): TopicPolicy {
  return { ...ACCOUNT_POLICY, merge: (snapshot, update) => apply(snapshot as S, update as U) };
}
