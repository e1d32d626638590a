import type { RiskLimit } from '@lib/core';

export type LimitName = 'maxOrderQty' | 'maxOrderNotional' | 'maxOpenOrders' | 'priceBand' | 'maxOrdersPerSecond';

/** One exposure count an order falls under (see OpenOrderCount); `market` is a symbol or a prefix ending in `*`. */
export interface ExposureCount {
  kind: 'notional' | 'position';
  key: string;
  max: number;
  scope: string;
  market?: string;
}

/** The tightest value of one limit among those that apply, and the limit that set it (named in a refusal). */
export interface BindingLimit {
  value: number;
  scope: string;
  market?: string;
}

function matchesMarket(pattern: string | undefined, market: string | undefined): boolean {
  if (pattern === undefined) return true;
  if (market === undefined) return false;
  return pattern.endsWith('*') ? market.startsWith(pattern.slice(0, -1)) : market === pattern;
}

function appliesTo(limit: RiskLimit, client: { id: string; team: string }): boolean {
  if (limit.scope === 'firm') return true;
  return limit.scope === 'team' ? limit.id === client.team : limit.id === client.id;
}

const scopeName = (limit: RiskLimit) => (limit.scope === 'firm' ? 'firm' : `${limit.scope}:${limit.id}`);

/**
 * The configured limits (firm > team > client, each optionally narrowed to a market or a market prefix)
 * as one lookup: where several apply, the most restrictive wins.
 */
export class RiskLimits {
  constructor(readonly limits: readonly RiskLimit[]) {}

  binding(name: LimitName, client: { id: string; team: string }, market: string | undefined): BindingLimit | undefined {
    let tightest: BindingLimit | undefined;
    for (const limit of this.limits) {
      const value = limit[name];
      if (value === undefined || !appliesTo(limit, client) || !matchesMarket(limit.market, market)) continue;
      if (!tightest || value < tightest.value) tightest = { value, scope: scopeName(limit), ...(limit.market ? { market: limit.market } : {}) };
    }
    return tightest;
  }

  /** The open-order limits that bind an order of this client on this market, each counted under its own key (scope and market pattern). */
  /** Every configured open-order count (the tightest per key, as `openOrderScopes` names them): its maximum, scope and market. */
  openOrderCounts(): { key: string; max: number; scope: string; market?: string }[] {
    const found = new Map<string, { key: string; max: number; scope: string; market?: string }>();
    for (const limit of this.limits) {
      if (limit.maxOpenOrders === undefined) continue;
      const key = scopeName(limit) + (limit.market ? `@${limit.market}` : '');
      const current = found.get(key);
      if (!current || limit.maxOpenOrders < current.max) found.set(key, { key, max: limit.maxOpenOrders, scope: scopeName(limit), ...(limit.market ? { market: limit.market } : {}) });
    }
    return [...found.values()];
  }

  /**
   * The exposure counts that bind an order of this client on this market, the tightest per key: open
   * notional per scope and market pattern (as the open-order counts), net position per scope and market
   * (a limit narrowed by a prefix counts the event's markets together; else the order's market alone).
   * Notional maxima are in micro-dollars, as the counts hold them.
   */
  exposureCounts(client: { id: string; team: string }, market: string): ExposureCount[] {
    const found = new Map<string, ExposureCount>();
    const keep = (count: ExposureCount) => {
      const current = found.get(count.key);
      if (!current || count.max < current.max) found.set(count.key, count);
    };
    for (const limit of this.limits) {
      if (!appliesTo(limit, client) || !matchesMarket(limit.market, market)) continue;
      const scope = scopeName(limit);
      if (limit.maxOpenNotional !== undefined) {
        keep({ kind: 'notional', key: `notional:${scope}${limit.market ? `@${limit.market}` : ''}`, max: Math.round(limit.maxOpenNotional * 1_000_000), scope, ...(limit.market ? { market: limit.market } : {}) });
      }
      if (limit.maxNetPosition !== undefined) {
        const counted = limit.market?.endsWith('*') ? limit.market : market;
        keep({ kind: 'position', key: `position:${scope}@${counted}`, max: limit.maxNetPosition, scope, market: counted });
      }
    }
    return [...found.values()];
  }

  openOrderScopes(client: { id: string; team: string }, market: string | undefined): { key: string; max: number; scope: string }[] {
    const found = new Map<string, { key: string; max: number; scope: string }>();
    for (const limit of this.limits) {
      if (limit.maxOpenOrders === undefined || !appliesTo(limit, client) || !matchesMarket(limit.market, market)) continue;
      const key = scopeName(limit) + (limit.market ? `@${limit.market}` : '');
      const current = found.get(key);
      if (!current || limit.maxOpenOrders < current.max) found.set(key, { key, max: limit.maxOpenOrders, scope: scopeName(limit) });
    }
    return [...found.values()];
  }
}
