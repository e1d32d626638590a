import { DomainError, ErrorCode } from '@lib/core';

import type { TradingStateRecord } from './trading-state.js';

/**
 * A refusal by a trading state: names the scope, the state and who latched it, when and why. `stage`
 * `send`: met right before the send, after the budget wait (the state was latched while the order waited).
 */
export function tradingStateRefusal(
  record: TradingStateRecord,
  path: string,
  stage?: 'send',
  closes?: boolean,
): DomainError {
  const code = record.state === 'reduce-only' ? ErrorCode.TRADING_REDUCE_ONLY : ErrorCode.TRADING_HALTED;
  const what =
    record.state !== 'reduce-only'
      ? 'no new orders are accepted (cancels are)'
      : closes
        ? 'only orders that reduce exposure are accepted, and a close-position sells the whole position, so the open orders on its side in this market would take the account past flat once they trade: cancel them first'
        : 'only orders that reduce exposure are accepted';
  return new DomainError(
    code,
    `Trading is ${record.state} at scope ${record.scope} (set by ${record.by} at ${record.at}: ${record.reason}); ${what}${
      stage === 'send' ? ', and it was latched while this order waited to be sent' : ''
    }; nothing was sent.`,
    {
      extensions: {
        scope: record.scope,
        state: record.state,
        haltedBy: record.by,
        since: record.at,
        reason: record.reason,
        order: path,
        ...(stage ? { stage } : {}),
      },
    },
  );
}

export type LimitCode =
  | ErrorCode.RISK_MAX_QUANTITY
  | ErrorCode.RISK_MAX_NOTIONAL
  | ErrorCode.RISK_MAX_OPEN_ORDERS
  | ErrorCode.RISK_OPEN_NOTIONAL
  | ErrorCode.RISK_POSITION_LIMIT;

/** A refusal by a risk limit: the limit, the observed value, the scope that set it and the order it refused. */
export function limitRefusal(
  code: LimitCode,
  name: string,
  limit: { value: number; scope: string; market?: string; event?: string },
  observed: number,
  path: string,
): DomainError {
  const where = limit.market ? ` for ${limit.market}` : limit.event ? ` for event ${limit.event}` : '';
  return new DomainError(
    code,
    `${name} ${observed} exceeds the limit ${limit.value} set at scope ${limit.scope}${where}; nothing was sent.`,
    {
      extensions: {
        limit: limit.value,
        observed,
        scope: limit.scope,
        ...(limit.market ? { market: limit.market } : {}),
        ...(limit.event ? { event: limit.event } : {}),
        order: path,
      },
    },
  );
}

/**
 * A change of an order whose market the gateway does not know (neither its order stream nor its journal
 * names it), while a state or a limit narrowed to a market could apply: refused (fail closed), never
 * judged on a market the body names (the exchange ignores a replace's symbol).
 */
export function marketUnknown(orderId: string | undefined, why: string, path: string): DomainError {
  const order = orderId === undefined ? 'this order' : `order ${orderId.slice(0, 100)}`;
  return new DomainError(
    ErrorCode.RISK_MARKET_UNKNOWN,
    `The market of ${order} is not known to this gateway (neither its order stream nor its journal names it) and ${why}, which may apply to it: the change is refused; nothing was sent.`,
    { extensions: { ...(orderId === undefined ? {} : { orderId: orderId.slice(0, 100) }), order: path } },
  );
}

export function notEntitled(field: string, path: string): DomainError {
  return new DomainError(
    ErrorCode.RISK_FIELD_NOT_ENTITLED,
    `${field} may be set only by a client whose config entitles it; nothing was sent.`,
    {
      errors: [{ path: `${path}.${field}`, message: 'not entitled' }],
      extensions: { field, order: path },
    },
  );
}

/**
 * A new price for an order whose quantity the gateway does not know (neither its order stream nor its
 * journal names it, or it is a cash order), while a notional limit applies: its notional cannot be
 * judged, so the change is refused (fail closed); one that names its quantity too can be judged.
 */
export function quantityUnknown(
  order: { orderId?: string; path: string },
  limit: { value: number; scope: string; market?: string; event?: string },
): DomainError {
  const which = order.orderId === undefined ? 'this order' : `order ${order.orderId.slice(0, 100)}`;
  const where = limit.market ? ` for ${limit.market}` : limit.event ? ` for event ${limit.event}` : '';
  return new DomainError(
    ErrorCode.RISK_MAX_NOTIONAL,
    `The quantity of ${which} is not known to this gateway, so its notional at the new price cannot be judged against the limit ${limit.value} set at scope ${limit.scope}${where}: send the quantity with the price; nothing was sent.`,
    {
      extensions: {
        limit: limit.value,
        scope: limit.scope,
        ...(limit.market ? { market: limit.market } : {}),
        ...(limit.event ? { event: limit.event } : {}),
        ...(order.orderId === undefined ? {} : { orderId: order.orderId.slice(0, 100) }),
        order: order.path,
      },
    },
  );
}

/**
 * A close-position under a quantity or notional limit while the account's position in the market is not
 * known here (its position channel has not delivered, or is not held): the close's size cannot be judged,
 * so it is refused, as an order under a net-position limit is (fail closed).
 */
export function closeSizeUnknown(limit: { value: number; scope: string }, path: string): DomainError {
  return new DomainError(
    ErrorCode.RISK_POSITION_UNKNOWN,
    `The position this close-position would sell is not known on this instance (its retail position channel has not delivered), so it cannot be judged against the limit ${limit.value} set at scope ${limit.scope}; nothing was sent.`,
    { extensions: { limit: limit.value, scope: limit.scope, order: path }, headers: { 'Retry-After': '1' } },
  );
}
