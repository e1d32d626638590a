import { ValidationError } from '@lib/core';
import type { AccountCallerContext } from '@lib/exchange';

/**
 * The participant an order-entering request acts for: the one its orders name in `account` (each one
 * already checked by the identity binder against the client; an absent one filled with the chosen
 * participant), else the chosen one. The whole path then acts for it (the risk checks, the journal, the
 * idempotency key, the upstream x-participant-id): a reduce-only state or a self-trade check is never
 * judged on another participant than the one the order is booked to. A batch naming two participants
 * could be judged for neither: 400 naming the first field that differs.
 */
export function actingFor(
  caller: AccountCallerContext,
  accounts: readonly (string | undefined)[],
  fieldOf: (index: number) => string,
): AccountCallerContext {
  const named = accounts.map((account) => account ?? caller.participant);
  const first = named[0] ?? caller.participant;
  const other = named.findIndex((account) => account !== first);
  if (other >= 0)
    throw new ValidationError(
      [{ path: fieldOf(other), message: `a batch acts for one participant: ${fieldOf(0)} names another` }],
      'The orders of one batch name different participants in account; send one batch per participant.',
    );
  return first === caller.participant ? caller : { ...caller, participant: first };
}
