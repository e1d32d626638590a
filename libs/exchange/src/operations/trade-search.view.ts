import type { Viewer } from '@lib/fanout';

import { type Json, isRecord, scrubbed } from '../grpc/firm-feed.view.js';

/** The sides of a trade record, each named by its fields' prefix (`buyAccount`, `buyOrderId`, ...). */
const SIDES = ['buy', 'sell'] as const;

/**
 * `POST /v1/report/trades/search` for a client that holds only some of the firm's participants: the
 * exchange answers a participant's search with both sides of a trade whole when both are the firm's,
 * so the other side would name another team's participant and order id. The same rule as the
 * `exchange.trades` feed (`TRADES_VIEW`): only trades with a side of the client's, the other side as
 * the exchange shows another firm's (its `<side>…` fields empty: no order id, clordId or account),
 * any other participant name left out at any depth. An `orderId` filter matches the client's own side
 * only, so a search by another team's order id finds nothing (it would otherwise say that order traded
 * against the client). The payload is not shown upstream: fields other than the sides pass through.
 */
export function tradeSearchView(text: string, viewer: Viewer, orderId: string | undefined): string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return text; // not JSON: relayed as the upstream sent it (its bytes name no one the gateway can read)
  }
  if (!isRecord(data) || !Array.isArray(data.trades)) return JSON.stringify(scrubbed(data, viewer));
  const trades = data.trades.filter(isRecord).flatMap((trade) => {
    const kept = ownSides(trade, viewer);
    if (kept === undefined) return [];
    if (orderId !== undefined && !SIDES.some((side) => kept[`${side}OrderId`] === orderId)) return [];
    return [scrubbed(kept, viewer)];
  });
  return JSON.stringify({ ...(scrubbed(data, viewer) as Json), trades });
}

/**
 * The trade with every side the viewer does not hold emptied; none when it names its sides' accounts
 * and none is the viewer's. A record naming no side's account is kept (scrubbed by the caller).
 */
function ownSides(trade: Json, viewer: Viewer): Json | undefined {
  const kept: Json = { ...trade };
  let named = false;
  let own = false;
  for (const side of SIDES) {
    const account = trade[`${side}Account`];
    if (typeof account !== 'string' || account === '') continue;
    named = true;
    if (viewer.principals.has(account)) own = true;
    else for (const field of Object.keys(trade)) if (isSideField(field, side)) kept[field] = '';
  }
  return own || !named ? kept : undefined;
}

const isSideField = (field: string, side: string): boolean =>
  field.startsWith(side) && /^[A-Z]/.test(field.slice(side.length));
