import { DomainError, ErrorCode } from '@lib/core';

import type { Reference } from './price-band.js';
import type { BindingLimit } from './risk-limits.js';

/** Dollars to the hundredth of a cent, enough to name a band, a reference and a price. */
const cents = (dollars: number) => Math.round(dollars * 10_000) / 10_000;

/** No fresh reference for an order that would execute at once (fail closed). */
export function staleReference(
  market: string,
  why: string,
  maxAgeMs: number,
  reference: Reference | undefined,
  path: string,
): DomainError {
  return new DomainError(
    ErrorCode.RISK_REFERENCE_STALE,
    `No fresh reference price for ${market} (${why}; at most ${maxAgeMs} ms allowed): an order that would execute at once is refused, a resting one is not; nothing was sent.`,
    {
      extensions: {
        symbol: market,
        maxAgeMs,
        ...(reference ? { reference: cents(reference.price), referenceAgeMs: reference.ageMs } : {}),
        order: path,
      },
    },
  );
}

/**
 * A replace or modify of an order whose market and side the gateway does not know, while a band may
 * apply: its new price cannot be placed against any reference, so it is refused as an order with no
 * reference is (fail closed). Its market is unknown, so the refusal names the order instead.
 */
export function unknownOrder(orderId: string, maxAgeMs: number, path: string): DomainError {
  return new DomainError(
    ErrorCode.RISK_REFERENCE_STALE,
    `No reference price for order ${orderId.slice(0, 100)}: this gateway does not know its market and side (neither the order stream nor its journal names it, or the journal cannot be read now), so a new price cannot be judged against the price band; nothing was sent. A change of quantity alone is not judged.`,
    { extensions: { orderId: orderId.slice(0, 100), maxAgeMs, order: path } },
  );
}

/**
 * A retail market order's slippage tolerance (`field`, e.g. `body.slippageTolerance`) that lets it
 * execute at a worst price outside the band: `observed` is that worst price on the long book.
 */
export interface ToleranceSeen {
  field: string;
  /** The tolerance names ticks and the market's tick is not known to the gateway: the worst was taken at the price's bound. */
  tickUnknown?: true;
}

/** An order that would execute at once, priced outside the tightest band around the reference. */
export function outsideBand(
  band: BindingLimit,
  reference: Reference,
  price: number,
  path: string,
  tolerance?: ToleranceSeen,
): DomainError {
  const low = reference.price - band.value;
  const high = reference.price + band.value;
  const what = tolerance
    ? `The slippage tolerance (${tolerance.field}) lets this market order execute at ${cents(price)}${tolerance.tickUnknown ? ' (it names ticks and the market tick is not known here, so the worst is taken at the price bound)' : ''}, which`
    : `Price ${cents(price)}`;
  return new DomainError(
    ErrorCode.RISK_PRICE_BAND,
    `${what} is outside the band ${cents(low)}–${cents(high)} (±${band.value} around the ${reference.source} ${cents(reference.price)}) set at scope ${band.scope}; nothing was sent.`,
    {
      extensions: {
        ...(tolerance ? { field: tolerance.field } : {}),
        ...(tolerance?.tickUnknown ? { tickUnknown: true } : {}),
        limit: band.value,
        band: { low: cents(low), high: cents(high) },
        reference: cents(reference.price),
        referenceSource: reference.source,
        observed: cents(price),
        scope: band.scope,
        ...(band.market ? { market: band.market } : {}),
        ...(band.event ? { event: band.event } : {}),
        order: path,
      },
    },
  );
}
