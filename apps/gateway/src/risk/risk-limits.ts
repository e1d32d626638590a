import type { RiskLimit } from './risk.config.js';

export type LimitName = 'maxOrderQty' | 'maxOrderNotional' | 'maxOpenOrders' | 'priceBand' | 'maxOrdersPerSecond';

/** One exposure count an order falls under (see OpenOrderCount); `market` is a symbol or a prefix ending in `*`, `event` an event id. */
export interface ExposureCount {
  kind: 'notional' | 'position';
  key: string;
  max: number;
  scope: string;
  market?: string;
  event?: string;
}

/** The tightest value of one limit among those that apply, and the limit that set it (named in a refusal). */
export interface BindingLimit {
  value: number;
  scope: string;
  market?: string;
  event?: string;
}

/** Whether a market (symbol or slug) falls under a `market` pattern: the symbol itself, or a prefix ending in `*`. */
export function matchesPattern(pattern: string, market: string): boolean {
  return pattern.endsWith('*') ? market.startsWith(pattern.slice(0, -1)) : market === pattern;
}

/** A limit with neither `market` nor `event` applies everywhere; else only to the markets it names, or to every market of its event. */
function matchesMarket(limit: RiskLimit, market: string | undefined, event: string | undefined): boolean {
  if (limit.event !== undefined) return event === limit.event;
  if (limit.market === undefined) return true;
  return market !== undefined && matchesPattern(limit.market, market);
}

/** Where a limit is narrowed to, as a refusal names it. */
const narrowing = (limit: RiskLimit) => ({
  ...(limit.market ? { market: limit.market } : {}),
  ...(limit.event ? { event: limit.event } : {}),
});
/** The part of a count's key that names its narrowing. */
const keyOf = (limit: RiskLimit) => (limit.event ? `@event:${limit.event}` : limit.market ? `@${limit.market}` : '');

function appliesTo(limit: RiskLimit, client: { id: string; team: string }): boolean {
  if (limit.scope === 'firm') return true;
  return limit.scope === 'team' ? limit.id === client.team : limit.id === client.id;
}

const scopeName = (limit: RiskLimit) => (limit.scope === 'firm' ? 'firm' : `${limit.scope}:${limit.id}`);

/**
 * The configured limits (firm > team > client, each optionally narrowed to a market, a market prefix or
 * an event: every market whose instrument names that event) as one lookup: where several apply, the
 * most restrictive wins. A market's event is looked up by the caller (MarketEvents) and passed in.
 */
export class RiskLimits {
  /** Some limit is narrowed to an event: orders need their market's event looked up. */
  readonly namesEvents: boolean;

  constructor(readonly limits: readonly RiskLimit[]) {
    this.namesEvents = limits.some((limit) => limit.event !== undefined);
  }

  binding(
    name: LimitName,
    client: { id: string; team: string },
    market: string | undefined,
    event?: string,
  ): BindingLimit | undefined {
    let tightest: BindingLimit | undefined;
    for (const limit of this.limits) {
      const value = limit[name];
      if (value === undefined || !appliesTo(limit, client) || !matchesMarket(limit, market, event)) continue;
      if (!tightest || value < tightest.value) tightest = { value, scope: scopeName(limit), ...narrowing(limit) };
    }
    return tightest;
  }

  /**
   * The tightest limit of this name narrowed to a market, a prefix or an event that applies to the
   * client: one an order whose market is not known may fall under.
   */
  tightestNarrowed(name: LimitName, client: { id: string; team: string }): BindingLimit | undefined {
    let tightest: BindingLimit | undefined;
    for (const limit of this.limits) {
      const value = limit[name];
      if (value === undefined || !appliesTo(limit, client) || (!limit.market && !limit.event)) continue;
      if (!tightest || value < tightest.value) tightest = { value, scope: scopeName(limit), ...narrowing(limit) };
    }
    return tightest;
  }

  /** Whether some limit of this name applies to the client in any market (an order whose market is not known may fall under it). */
  mayBind(name: LimitName, client: { id: string; team: string }): boolean {
    return this.limits.some((limit) => limit[name] !== undefined && appliesTo(limit, client));
  }

  /** Every configured open-order count (the tightest per key, as `openOrderScopes` names them): its maximum, scope and market. */
  openOrderCounts(): { key: string; max: number; scope: string; market?: string }[] {
    const found = new Map<string, { key: string; max: number; scope: string; market?: string }>();
    for (const limit of this.limits) {
      if (limit.maxOpenOrders === undefined) continue;
      const key = scopeName(limit) + keyOf(limit);
      const current = found.get(key);
      if (!current || limit.maxOpenOrders < current.max)
        found.set(key, {
          key,
          max: limit.maxOpenOrders,
          scope: scopeName(limit),
          ...(limit.market ? { market: limit.market } : {}),
        });
    }
    return [...found.values()];
  }

  /**
   * The exposure counts that bind an order of this client on this market, the tightest per key: open
   * notional per scope and market pattern (as the open-order counts), net position per scope and market
   * (a limit narrowed by a prefix or an event counts its markets together; else the order's market alone).
   * Notional maxima are in micro-dollars, as the counts hold them.
   */
  exposureCounts(client: { id: string; team: string }, market: string, event?: string): ExposureCount[] {
    const found = new Map<string, ExposureCount>();
    const keep = (count: ExposureCount) => {
      const current = found.get(count.key);
      if (!current || count.max < current.max) found.set(count.key, count);
    };
    for (const limit of this.limits) {
      if (!appliesTo(limit, client) || !matchesMarket(limit, market, event)) continue;
      const scope = scopeName(limit);
      if (limit.maxOpenNotional !== undefined) {
        keep({
          kind: 'notional',
          key: `notional:${scope}${keyOf(limit)}`,
          max: Math.round(limit.maxOpenNotional * 1_000_000),
          scope,
          ...narrowing(limit),
        });
      }
      if (limit.maxNetPosition !== undefined && limit.event !== undefined) {
        keep({
          kind: 'position',
          key: `position:${scope}@event:${limit.event}`,
          max: limit.maxNetPosition,
          scope,
          event: limit.event,
        });
      } else if (limit.maxNetPosition !== undefined) {
        const counted = limit.market?.endsWith('*') ? limit.market : market;
        keep({
          kind: 'position',
          key: `position:${scope}@${counted}`,
          max: limit.maxNetPosition,
          scope,
          market: counted,
        });
      }
    }
    return [...found.values()];
  }

  openOrderScopes(
    client: { id: string; team: string },
    market: string | undefined,
    event?: string,
  ): { key: string; max: number; scope: string }[] {
    const found = new Map<string, { key: string; max: number; scope: string }>();
    for (const limit of this.limits) {
      if (limit.maxOpenOrders === undefined || !appliesTo(limit, client) || !matchesMarket(limit, market, event))
        continue;
      const key = scopeName(limit) + keyOf(limit);
      const current = found.get(key);
      if (!current || limit.maxOpenOrders < current.max)
        found.set(key, { key, max: limit.maxOpenOrders, scope: scopeName(limit) });
    }
    return [...found.values()];
  }
}
