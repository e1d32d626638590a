/** What the gateway calls each retail stream, whatever the upstream key spelling. */
export type RetailStreamName = 'orders' | 'positions' | 'balances' | 'marketData' | 'marketDataLite' | 'trade';

/** One data message of a retail channel in one internal shape; `data` is the upstream payload untouched. */
export interface RetailStreamEvent {
  stream: RetailStreamName;
  kind: 'snapshot' | 'update';
  requestId: string;
  subscriptionType?: string;
  /** The upstream key the payload came under (`positionSubscriptionUpdate`, or the docs' `positionSubscription`). */
  key: string;
  data: unknown;
  marketSlug?: string;
}

export type RetailFrame =
  | { kind: 'heartbeat' }
  | { kind: 'error'; requestId?: string; message: string }
  | { kind: 'data'; event: RetailStreamEvent }
  | { kind: 'unknown'; text: string };

/**
 * Every payload key either spelling uses: the SDK's (upstream-facts WebSocket protocol) and the newer
 * retail docs' (upstream-facts "Retail extras"), plus the SDK's own fallbacks (`ordersSnapshot`, ...).
 * marketData and marketDataLite messages carry the whole state each time, so they count as snapshots.
 */
const PAYLOAD_KEYS: Record<string, [RetailStreamName, RetailStreamEvent['kind']]> = {
  orderSubscriptionSnapshot: ['orders', 'snapshot'],
  ordersSnapshot: ['orders', 'snapshot'],
  orderSubscriptionUpdate: ['orders', 'update'],
  orderUpdate: ['orders', 'update'],
  positionSubscriptionSnapshot: ['positions', 'snapshot'],
  positionsSnapshot: ['positions', 'snapshot'],
  positionSubscriptionUpdate: ['positions', 'update'],
  positionUpdate: ['positions', 'update'],
  positionSubscription: ['positions', 'update'],
  accountBalanceSubscriptionSnapshot: ['balances', 'snapshot'],
  accountBalancesSnapshot: ['balances', 'snapshot'],
  accountBalanceSubscriptionUpdate: ['balances', 'update'],
  accountBalanceUpdate: ['balances', 'update'],
  accountBalancesUpdate: ['balances', 'update'],
  marketData: ['marketData', 'snapshot'],
  marketDataLite: ['marketDataLite', 'snapshot'],
  trade: ['trade', 'update'],
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads one text frame of either retail channel. */
export function parseRetailFrame(text: string): RetailFrame {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { kind: 'unknown', text };
  }
  if (!isRecord(message)) return { kind: 'unknown', text };
  if ('heartbeat' in message) return { kind: 'heartbeat' };
  const requestId = typeof message.requestId === 'string' ? message.requestId : undefined;
  if ('error' in message)
    return { kind: 'error', message: String(message.error), ...(requestId === undefined ? {} : { requestId }) };
  const key = Object.keys(message).find((name) => name in PAYLOAD_KEYS);
  if (!key || requestId === undefined) return { kind: 'unknown', text };
  const [stream, kind] = PAYLOAD_KEYS[key];
  const data = message[key];
  const subscriptionType = typeof message.subscriptionType === 'string' ? message.subscriptionType : undefined;
  const marketSlug = marketSlugOf(data);
  return {
    kind: 'data',
    event: {
      stream,
      kind,
      requestId,
      key,
      data,
      ...(subscriptionType ? { subscriptionType } : {}),
      ...(marketSlug ? { marketSlug } : {}),
    },
  };
}

/** Where each payload names its market: at the top, in an order update's execution, or in the docs' position shape. */
function marketSlugOf(data: unknown): string | undefined {
  if (!isRecord(data)) return undefined;
  if (typeof data.marketSlug === 'string') return data.marketSlug;
  const order = isRecord(data.execution) && isRecord(data.execution.order) ? data.execution.order : undefined;
  if (order && typeof order.marketSlug === 'string') return order.marketSlug;
  const after = isRecord(data.afterPosition) ? data.afterPosition : undefined;
  const metadata = after && isRecord(after.marketMetadata) ? after.marketMetadata : undefined;
  return metadata && typeof metadata.slug === 'string' ? metadata.slug : undefined;
}
