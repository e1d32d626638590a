import { z } from 'zod';

/** nautilus_trader's ACTIVE / REDUCING / HALTED, plus the kill switch: halted with every resting order cancelled. */
export const TRADING_STATES = ['active', 'reduce-only', 'halted', 'halt-and-cancel'] as const;
export type TradingState = (typeof TRADING_STATES)[number];

/** How severe a state is: where several scopes apply, the most severe decides. */
export const SEVERITY: Record<TradingState, number> = { active: 0, 'reduce-only': 1, halted: 2, 'halt-and-cancel': 3 };

/** `firm`, `team:<id>`, `client:<id>` or `market:<symbol or slug>`. */
export const TradingScopeSchema = z
  .string()
  .regex(/^(firm|(team|client|market):[A-Za-z0-9][A-Za-z0-9._-]*)$/, 'firm, team:<id>, client:<id> or market:<slug>');

/** One scope's latched state and who put it there. */
export interface TradingStateRecord {
  scope: string;
  state: TradingState;
  reason: string;
  by: string;
  at: string;
}

/** One recorded change: who, when, old → new. */
export interface TradingStateChange extends TradingStateRecord {
  from: TradingState;
}

/** The scopes an order of this client on this market falls under, broadest first. */
export function scopesOf(client: { id: string; team: string }, market: string | undefined): string[] {
  const scopes = ['firm', `team:${client.team}`, `client:${client.id}`];
  if (market !== undefined) scopes.push(`market:${market}`);
  return scopes;
}
