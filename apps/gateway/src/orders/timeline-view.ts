import { type JournalRecord, provesOrder } from '@lib/journal';

const named = (values: (string | undefined)[]): Set<string> =>
  new Set(values.filter((value): value is string => value !== undefined));

/**
 * The records of an order's timeline a team may read: its own (its team named on them), and the
 * records naming no team (the exchange's stream events, the kill switch's per-order records) of an
 * order its own records show it was given (provesOrder). A clordId is the client's string, so two teams may have used the same
 * one (the exchange takes it again once the first order is closed): the other team's records and its
 * order's stream events stay out.
 */
export function teamView(records: readonly JournalRecord[], team: string): JournalRecord[] {
  const own = records.filter((record) => record.team === team);
  const orderIds = named(own.filter(provesOrder).map((record) => record.orderId));
  const clordIds = named(own.map((record) => record.clordId));
  const othersClordIds = named(
    records.filter((record) => record.team !== undefined && record.team !== team).map((record) => record.clordId),
  );
  return records.filter((record) => {
    if (record.team !== undefined) return record.team === team;
    if (record.orderId !== undefined) return orderIds.has(record.orderId);
    // A teamless record with only a clordId (a cancel reject): the team's only when no other team used that clordId.
    return record.clordId !== undefined && clordIds.has(record.clordId) && !othersClordIds.has(record.clordId);
  });
}

/**
 * A team's timeline of a clordId: its records that name the clordId, and what teamView lets it read of
 * the orders those records prove. The journal's query also follows the clordId to every order id
 * another team's records give it; a record of this team naming such an id (a refused replace of an
 * order it was never given) must not make the answer a 200 that ties the other team's clordId to it.
 */
export function clordView(records: readonly JournalRecord[], team: string, clordId: string): JournalRecord[] {
  const named = records.filter((record) => record.team === team && record.clordId === clordId);
  const proven = new Set(named.filter(provesOrder).map((record) => record.orderId));
  return teamView(
    records.filter(
      (record) => record.clordId === clordId || (record.orderId !== undefined && proven.has(record.orderId)),
    ),
    team,
  );
}
