import { z } from 'zod';

import { type ConfiguredIds, MARKET_NAME } from './risk.config.js';

/** nautilus_trader's ACTIVE / REDUCING / HALTED, plus the kill switch: halted with every resting order cancelled. */
export const TRADING_STATES = ['active', 'reduce-only', 'halted', 'halt-and-cancel'] as const;
export type TradingState = (typeof TRADING_STATES)[number];

/** How severe a state is: where several scopes apply, the most severe decides. */
export const SEVERITY: Record<TradingState, number> = { active: 0, 'reduce-only': 1, halted: 2, 'halt-and-cancel': 3 };

/**
 * `firm`, `team:<id>`, `client:<id>` or `market:<symbol or slug>`: the shape of every scope ever
 * latched, so that any of them can be lifted. What a new state may name is narrower (scopeProblem).
 */
export const TradingScopeSchema = z
  .string()
  .regex(/^(firm|(team|client|market):[A-Za-z0-9][A-Za-z0-9._-]*)$/, 'firm, team:<id>, client:<id> or market:<slug>');

/** A market as orders name it (MARKET_NAME), bounded: it is a metric's label. */
const MARKET_SCOPE = new RegExp(`^market:${MARKET_NAME}$`);

/**
 * What is wrong with a scope a state is set on (undefined: nothing). A team or client must be one the
 * config declares, exactly as spelled there: `client:Alice` for the client `alice` would halt nobody,
 * silently. A market is one market as an order names it (at most 200 characters, no `*`: a state's
 * market scope is matched by the order's own market, never as a prefix).
 */
export function scopeProblem(scope: string, known: ConfiguredIds): string | undefined {
  if (scope === 'firm') return undefined;
  if (scope.startsWith('market:'))
    return MARKET_SCOPE.test(scope)
      ? undefined
      : 'market:<symbol or slug>: letters, digits, dots, underscores and dashes, at most 200 characters';
  const colon = scope.indexOf(':');
  const kind = scope.slice(0, colon);
  const id = scope.slice(colon + 1);
  const ids = kind === 'team' ? known.teams : known.clients;
  return ids.has(id) ? undefined : `unknown ${kind} "${id.slice(0, 100)}" (not in the config; ids are case-sensitive)`;
}

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
