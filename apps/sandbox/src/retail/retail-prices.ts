import type { Amount } from './wire/retail-records.wire.js';

import type { Instrument } from '../engine/index.js';

/** Cash is kept in the engine in price units x multiplier; every fixture prices in cents, so cash is cents. */
export const CASH_SCALE = 2;

/** What one market's prices are measured in: 10^priceScale units per dollar, and the payout of a YES. */
export interface PriceFrame {
  scale: number;
  /** Price units a winning contract pays (spec 2.5 payoutValue; 100 = $1 at priceScale 2). */
  payout: number;
}

const DEFAULT_FRAME: PriceFrame = { scale: 2, payout: 100 };

export function priceFrameOf(instrument: Instrument | undefined): PriceFrame {
  if (!instrument) return DEFAULT_FRAME;
  const scale = Number(instrument.priceScale);
  const payout = Number(instrument.eventAttributes.payoutValue);
  return { scale, payout: payout > 0 ? payout : 10 ** scale };
}

/**
 * A decimal string in engine units: decimal x 10^scale. A value finer than the scale stays fractional
 * (rounded only to shed binary noise), so the engine refuses it as a bad price increment.
 */
export function unitsOf(value: string, scale: number): number {
  return Math.round(Number(value) * 10 ** scale * 1e6) / 1e6;
}

/** Engine units as a decimal string with `scale` places; averages and costs may carry a few more. */
export function decimalOf(units: number, scale: number): string {
  const value = units / 10 ** scale;
  if (Number.isInteger(units)) return value.toFixed(scale);
  return value.toFixed(scale + 4).replace(/0+$/, '');
}

export function amountOf(units: number, scale: number): Amount {
  return { value: decimalOf(units, scale), currency: 'USD' };
}

/** Balances are JSON numbers in dollars (upstream-facts "Balance"). */
export function dollarsOf(cashUnits: number): number {
  return cashUnits / 10 ** CASH_SCALE;
}

export function isoOf(epochMs: number | undefined): string | undefined {
  return epochMs === undefined || epochMs === 0 ? undefined : new Date(epochMs).toISOString();
}
