import { z } from 'zod';

/** What a client may ask of the exchange only when its config grants it (issue 26 "field policing"). */
export const RISK_ENTITLEMENTS = ['ignorePriceValidityChecks'] as const;
export type RiskEntitlement = (typeof RISK_ENTITLEMENTS)[number];

/** Where a limit applies: the whole firm, one team or one client (by id), optionally narrowed to markets. */
export const RISK_SCOPE_KINDS = ['firm', 'team', 'client'] as const;
export type RiskScopeKind = (typeof RISK_SCOPE_KINDS)[number];

/**
 * A market's name as the risk rules write it (a limit's market, a trading state's `market:` scope): as
 * orders spell it, an exchange symbol or a retail market slug (one namespace on this venue), letters,
 * digits, dots, underscores and dashes, at most 200 characters as the retail API's slugs. Not narrower
 * than the symbols the exchange lists, or some market could not be limited or halted; bounded because
 * it becomes a metrics label and a Redis field.
 */
export const MARKET_NAME = '[A-Za-z0-9][A-Za-z0-9._-]{0,199}';

/**
 * A market or a pattern ending in `*` (every market whose name starts so: an event's markets share
 * their slug's stem).
 */
const MarketPattern = z
  .string()
  .regex(
    new RegExp(`^${MARKET_NAME}\\*?$`),
    'a market as orders name it (letters, digits, dots, underscores, dashes; at most 200 characters), or a prefix ending in *',
  );

/**
 * The slowest throttle a limit may set: one order-entering call an hour. A rate nearer zero is a
 * mistake, not a brake (5e-324 made every call after the first wait for ever, and Retry-After read
 * Infinity); to stop a client's orders, halt it.
 */
export const MIN_ORDERS_PER_SECOND = 1 / 3_600;

/**
 * The largest dollar figure a notional limit may name: a billion dollars. Open notional is counted in
 * micro-dollars, and a billion of them times a million is still an exact double (below 2^53); a larger
 * figure lost precision, and past about 1.8e302 became Infinity in the count.
 */
export const MAX_NOTIONAL_DOLLARS = 1_000_000_000;

export const RiskLimitSchema = z
  .object({
    scope: z.enum(RISK_SCOPE_KINDS),
    /** The team or client id; absent for the firm. */
    id: z.string().min(1).optional(),
    market: MarketPattern.optional(),
    /**
     * An event id: the limit applies to every market of that event, found from the instrument data (the
     * exchange instrument's `eventAttributes.eventId`; a retail market slug is the same name as its symbol).
     * Not with `market`.
     */
    event: z.string().min(1).max(200).optional(),
    /** Contracts per order. */
    maxOrderQty: z.number().int().positive().optional(),
    /** Dollars per order, at the order's worst case (buy: qty × price, sell: qty × (1 − price); cash order: its amount). */
    maxOrderNotional: z.number().positive().max(MAX_NOTIONAL_DOLLARS).optional(),
    /** Orders open at the exchange at once (counted across every gateway instance). */
    maxOpenOrders: z.number().int().nonnegative().optional(),
    /**
     * Dollars of exchange orders open at once under the scope (each at its worst case, as maxOrderNotional),
     * the order's own included; with `market`, only orders in the markets it names (a prefix: an event's).
     */
    maxOpenNotional: z.number().positive().max(MAX_NOTIONAL_DOLLARS).optional(),
    /**
     * Contracts: |net position + same-side open quantity + the order| per market (with a `market` prefix,
     * summed over the event's markets it names), at most this; an order that brings it closer to flat passes.
     */
    maxNetPosition: z.number().int().positive().optional(),
    /**
     * Dollars either side of the streamed reference price (mid when the spread is tight, else last trade)
     * within which an order that would execute at once must be priced: exchange inserts, batch children and
     * replace items, retail creates, modifies and close-positions (replaces and modifies by their new price).
     */
    priceBand: z.number().positive().optional(),
    /** Order-entering calls per second per client (each client of the scope counted on its own; a market narrowing does not apply). */
    maxOrdersPerSecond: z
      .number()
      .min(MIN_ORDERS_PER_SECOND, 'at least 1/3600 (one order-entering call an hour); to stop a client, halt it')
      .optional(),
  })
  .strict()
  .superRefine((limit, ctx) => {
    if (limit.scope === 'firm' && limit.id !== undefined)
      ctx.addIssue({ code: 'custom', path: ['id'], message: 'a firm limit names no id' });
    if (limit.scope !== 'firm' && limit.id === undefined)
      ctx.addIssue({ code: 'custom', path: ['id'], message: `a ${limit.scope} limit names its ${limit.scope} id` });
    if (limit.market !== undefined && limit.event !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['event'],
        message: 'a limit is narrowed to a market or to an event, not both',
      });
  });
export type RiskLimit = z.infer<typeof RiskLimitSchema>;

/** The longest a reject breaker's window or cool-off may be (a longer stop is a halt of the client). */
const ONE_DAY_SECONDS = 86_400;

/** The reject breaker's figures: `rejects` upstream rejects within `windowSeconds` block the client's new orders for `coolOffSeconds`. */
const BreakerFiguresSchema = z
  .object({
    /** Upstream rejects of a client's orders that trip the breaker (0: off). */
    rejects: z.number().int().nonnegative(),
    windowSeconds: z.number().positive().max(ONE_DAY_SECONDS),
    /**
     * How long a tripped breaker blocks new orders (cancels pass) unless an admin resets it sooner. At
     * most a day: a breaker's `until` is written as a date, which a figure near 1e300 s made invalid.
     */
    coolOffSeconds: z.number().positive().max(ONE_DAY_SECONDS),
  })
  .strict();

/** Issue 26 "a breaker that blocks a client after N upstream rejects in M seconds": defaults, and per-client overrides. */
const BreakerSchema = z
  .object({
    rejects: BreakerFiguresSchema.shape.rejects.default(20),
    windowSeconds: BreakerFiguresSchema.shape.windowSeconds.default(10),
    coolOffSeconds: BreakerFiguresSchema.shape.coolOffSeconds.default(300),
    /** By client id: any of the figures above, replacing the default for that client. */
    clients: z.record(z.string().min(1), BreakerFiguresSchema.partial()).default({}),
    /**
     * Rejects that arrive on the exchange order stream after a 200 (a 200 is not acceptance): `while-orders`
     * holds the order stream from an instance's first exchange insert until a minute after its last, and
     * counts them; `never` counts only the rejects the answers show.
     */
    orderStream: z.enum(['while-orders', 'never']).default('while-orders'),
  })
  .strict();
export type BreakerConfig = z.infer<typeof BreakerSchema>;

export const RiskSchema = z
  .object({
    /** Exchange prices are int64 in 10^-priceScale dollars (upstream-facts); the venue's contracts price in cents. */
    exchangePriceScale: z.number().int().min(0).max(8).default(2),
    /** Every instance re-reads the latched trading states this often, besides the pushed changes (a missed push heals). */
    stateResyncMs: z.number().int().positive().default(2_000),
    /** How long a kill switch's cancels may queue for the cancel budget before one is reported unresolved. */
    killSwitchWaitMs: z.number().int().positive().default(10_000),
    /** A reservation for an order whose answer never came (an instance died mid-insert) is dropped after this. */
    unansweredReservationMs: z.number().int().positive().default(300_000),
    /** A price-band reference older than this (the book last heard from the stream that long ago) refuses orders that would execute at once. */
    maxReferenceAgeMs: z.number().int().positive().default(30_000),
    /** The reference is the mid while ask − bid is at most this many dollars, else the last trade. */
    tightSpread: z.number().nonnegative().default(0.05),
    /** Firm policy on an order that would cross a resting order of another of the firm's participants: `reject` refuses it. */
    crossTeamSelfTrade: z.enum(['off', 'reject']).default('off'),
    limits: z.array(RiskLimitSchema).default([]),
    breaker: BreakerSchema.prefault({}),
    /**
     * Trading states older than this (the last successful read of the latched set, Redis unreachable
     * since) refuse new orders 503 TRADING_STATE_UNKNOWN, as do states never read since start (fail closed).
     */
    maxStateAgeMs: z.number().int().positive().default(30_000),
  })
  .strict();
export type RiskConfig = z.infer<typeof RiskSchema>;

/** What risk adds to each client's entry (`clients[]`): the order fields it may set, and what it is. */
export const RiskClientFields = {
  /** Order fields this client may set that the gateway otherwise refuses (issue 26 field policing). */
  entitlements: z.array(z.enum(RISK_ENTITLEMENTS)).default([]),
  /** What the client is: stamped as every order's manualOrderIndicator, whatever the body says. */
  manualOrders: z.boolean().default(false),
};

/** The team and client ids the config declares, exactly as spelled there: what a limit, state or breaker reset may name. */
export interface ConfiguredIds {
  teams: ReadonlySet<string>;
  clients: ReadonlySet<string>;
}

export function configuredIds(config: {
  teams: readonly { id: string }[];
  clients: readonly { id: string }[];
}): ConfiguredIds {
  return { teams: new Set(config.teams.map((t) => t.id)), clients: new Set(config.clients.map((c) => c.id)) };
}

/** The config check risk adds to the app's schema: a team or client limit names a configured team or client. */
export function riskConfigCheck(
  config: { risk: RiskConfig; teams: readonly { id: string }[]; clients: readonly { id: string }[] },
  ctx: z.RefinementCtx,
): void {
  for (const { index, message } of unknownScopeIds(config.risk.limits, configuredIds(config)))
    ctx.addIssue({ code: 'custom', path: ['risk', 'limits', index, 'id'], message });
}

/** The limits that name a team or client not declared: each one's index and what is wrong (config's check, and an admin set's). */
export function unknownScopeIds(
  limits: readonly RiskLimit[],
  known: ConfiguredIds,
): { index: number; message: string }[] {
  return limits.flatMap((limit, index) => {
    const ids = limit.scope === 'team' ? known.teams : limit.scope === 'client' ? known.clients : undefined;
    return ids && !ids.has(limit.id ?? '') ? [{ index, message: `unknown ${limit.scope} "${limit.id}"` }] : [];
  });
}
