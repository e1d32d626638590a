import type { MatchingEngine } from '../engine/index.js';
import { participantsOf } from '../shared/exchange-clients.js';
import { SurfaceError } from '../shared/surface-error.js';
import type { ExchangeCaller } from './exchange-authorization.js';

/** Every participant of the caller's firm (`firms/<FIRM>/users/<USER>`): what its reports and orders may name. */
export function firmAccounts(caller: ExchangeCaller): string[] {
  return participantsOf(caller.client);
}

/**
 * The account an order is booked to: the request's own `account` when it names a user of the caller's
 * firm, else the x-participant-id. Another firm's account is refused like another firm's participant.
 */
export function accountFor(caller: ExchangeCaller, requested: string | undefined): string {
  if (!caller.participant) throw new Error('accountFor needs an @AccountScoped() route');
  if (!requested) return caller.participant;
  if (!firmAccounts(caller).includes(requested)) {
    throw new SurfaceError(403, `permission denied: account ${requested} is not a user of firm ${caller.client.firm}`);
  }
  return requested;
}

/** The requested accounts narrowed to the caller's firm (all of its users when none are named). */
export function visibleAccounts(caller: ExchangeCaller, requested: readonly string[] | undefined): string[] {
  const own = firmAccounts(caller);
  return requested && requested.length > 0 ? requested.filter((account) => own.includes(account)) : own;
}

/** The account of an order of the caller's firm, by id; any other order is reported missing, as the engine does. */
export function ownerOf(engine: MatchingEngine, caller: ExchangeCaller, orderId: string): string {
  const order = engine.order(orderId);
  if (!order || !firmAccounts(caller).includes(order.account))
    throw new SurfaceError(404, `order ${orderId} not found`);
  return order.account;
}
