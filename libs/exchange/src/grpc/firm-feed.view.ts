import type { TopicPolicy, TopicView, Viewer } from '@lib/fanout';

/** spec 5.1.4: how the exchange names a participant (an order's `account`, `participant`, ...). */
const PARTICIPANT = /^firms\/[^/]+\/users\/[^/]+$/;

export type Json = Record<string, unknown>;

export const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const listOf = (data: unknown, field: string): Json[] =>
  isRecord(data) && Array.isArray(data[field]) ? data[field].filter(isRecord) : [];

/** An execution is its order's: the account it trades for, or the participant that entered it. */
function owns(viewer: Viewer, execution: unknown): boolean {
  const order = isRecord(execution) ? execution.order : undefined;
  if (!isRecord(order)) return false;
  return [order.account, order.participant].some((name) => typeof name === 'string' && viewer.principals.has(name));
}

/** Every participant name the viewer does not hold is left out, at any depth (a submitting participant, say). */
export function scrubbed(value: unknown, viewer: Viewer): unknown {
  if (Array.isArray(value)) return value.filter((item) => !foreign(item, viewer)).map((item) => scrubbed(item, viewer));
  if (!isRecord(value)) return value;
  const kept: Json = {};
  for (const [key, field] of Object.entries(value)) if (!foreign(field, viewer)) kept[key] = scrubbed(field, viewer);
  return kept;
}

export const foreign = (value: unknown, viewer: Viewer): boolean =>
  typeof value === 'string' && PARTICIPANT.test(value) && !viewer.principals.has(value);

/**
 * The other side of a trade: what the trade itself says (quantity, price, side, time), none of who
 * it was (no execution, order, clordId, account or participant). Kept by allow-list, so a field the
 * exchange adds later stays hidden.
 */
function counterparty(execution: unknown): Json | undefined {
  if (!isRecord(execution)) return undefined;
  const order = isRecord(execution.order) ? execution.order : {};
  const pick = (from: Json, fields: string[]) =>
    Object.fromEntries(fields.filter((field) => field in from).map((field) => [field, from[field]]));
  return {
    ...pick(execution, ['tradeId', 'lastShares', 'lastPx', 'type', 'aggressor', 'transactTime', 'transactTradeDate']),
    order: pick(order, ['symbol', 'side']),
  };
}

/** `exchange.dropcopy`: only the executions of the viewer's participants. */
export const DROP_COPY_VIEW: TopicView = (data, viewer) => ({
  executions: listOf(data, 'executions')
    .filter((execution) => owns(viewer, execution))
    .map((execution) => scrubbed(execution, viewer)),
});

/** `exchange.trades`: the trades with a side of the viewer's; the other side without its identity. */
export const TRADES_VIEW: TopicView = (data, viewer) => ({
  tradeCaptureReports: listOf(data, 'tradeCaptureReports')
    .filter((trade) => owns(viewer, trade.aggressor) || owns(viewer, trade.passive))
    .map((trade) => {
      const side = (execution: unknown) =>
        owns(viewer, execution) ? scrubbed(execution, viewer) : counterparty(execution);
      return scrubbed({ ...trade, aggressor: side(trade.aggressor), passive: side(trade.passive) }, viewer);
    }),
});

/**
 * The one rule of the firm-wide feeds (every family whose topic carries the records of all the
 * firm's participants): a client that holds only some of the participants (see the gateway's
 * feed viewer) gets each frame through `view`, with the same seq; only a client holding every
 * participant, or granted `firmWide`, gets it whole. A new firm-wide family registers through this.
 */
export function firmWideFeed(policy: TopicPolicy, view: TopicView): TopicPolicy {
  return { ...policy, view };
}
