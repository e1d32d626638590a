import { ACCOUNT_POLICY, type SnapshotFold, type TopicPolicy } from '@lib/fanout';

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

export function applyPositionChanges(snapshot: PositionsSnapshot, update: PositionsUpdate): PositionsSnapshot {
  return {
    positions: latestBySymbol(
      snapshot.positions,
      update.positionChanges.map((change) => change.position),
    ),
  };
}

/**
 * A firm-state topic's records, the latest per symbol, as the hub folds them for late joiners: an
 * update costs what it changes (a Map by symbol), not a copy of every held record; `data` lists them in
 * `latestBySymbol`'s order (a symbol keeps its place, a new one joins last).
 */
class LatestBySymbol<T extends { symbol: string }> implements SnapshotFold {
  private bySymbol = new Map<string, T>();

  constructor(
    private readonly list: string,
    private readonly changed: (update: unknown) => readonly T[],
  ) {}

  reset(snapshot: unknown): void {
    const held = (snapshot as Record<string, readonly T[] | undefined>)[this.list] ?? [];
    this.bySymbol = new Map(held.map((entry) => [entry.symbol, entry]));
  }

  apply(update: unknown): void {
    for (const entry of this.changed(update)) this.bySymbol.set(entry.symbol, entry);
  }

  data(): Record<string, T[]> {
    return { [this.list]: [...this.bySymbol.values()] };
  }
}

/**
 * The policy of a firm-state topic: never conflated or dropped (a halt or a fill must not be skipped);
 * late joiners get the latest record per symbol, each update's `changed` records folded in.
 */
export function latestBySymbolPolicy<T extends { symbol: string }>(
  list: string,
  changed: (update: unknown) => readonly T[],
): TopicPolicy {
  return { ...ACCOUNT_POLICY, fold: () => new LatestBySymbol(list, changed) };
}
