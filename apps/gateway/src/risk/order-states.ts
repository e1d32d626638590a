/**
 * Orders in these states are done, on either surface (the exchange's and the retail API's order states
 * share their names): an order brought to one of them gives its share of every count back.
 */
export const CLOSED_ORDER_STATES: ReadonlySet<string> = new Set([
  'ORDER_STATE_FILLED',
  'ORDER_STATE_CANCELED',
  'ORDER_STATE_REPLACED',
  'ORDER_STATE_REJECTED',
  'ORDER_STATE_EXPIRED',
]);
