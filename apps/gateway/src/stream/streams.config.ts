import { z } from 'zod';

const count = z.number().int().nonnegative();
/** upstream-facts: one market-data stream carries up to 1,000 symbols. */
const SYMBOLS_PER_STREAM = 1_000;

/**
 * One client's own stream caps, each overriding the default of the same purpose for that client only
 * (`streams.clients.<client id>`): a dashboard backend that mints tickets for many browsers, say.
 */
export const ClientStreamsSchema = z
  .object({
    /** `/ws` connections on one instance (default `streams.maxConnectionsPerClient`). */
    maxConnections: z.number().int().positive().optional(),
    /** Distinct exchange topics that hold an upstream stream each (default `streams.exchange.maxTopicsPerClient`). */
    maxExchangeTopics: z.number().int().positive().optional(),
    /** Distinct market-data symbols over all its connections (default: no cap of its own, its team's symbol share). */
    maxMarketDataSymbols: z.number().int().positive().optional(),
  })
  .strict();
export type ClientStreamsConfig = z.infer<typeof ClientStreamsSchema>;

/** A dashboard backend serves its browsers through its tickets, each browser one connection: 500 and more per instance. */
export const DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 1_000;

/**
 * Caps on what `/ws` clients may hold. Connections cost the instance that holds them, so their cap is
 * per instance; exchange streams cost the firm (upstream-facts: at most 20 concurrent streams per firm
 * across every streaming call), so they are counted cluster-wide, per client and per team.
 */
export const StreamsSchema = z
  .object({
    /**
     * Concurrent `/ws` connections one client may hold on one instance, its browsers' tickets included;
     * beyond it the upgrade gets 429. It keeps one client from taking an instance's sockets and memory.
     */
    maxConnectionsPerClient: z.number().int().positive().default(DEFAULT_MAX_CONNECTIONS_PER_CLIENT),
    /** Per-client overrides, by client id. */
    clients: z.record(z.string(), ClientStreamsSchema).default({}),
    exchange: z
      .object({
        /** upstream-facts: 20 concurrent streams per firm, every streaming RPC together. */
        firmStreams: z.number().int().positive().default(20),
        /**
         * Streams no topic may take: the market-data streams, which topics do not claim (they spend
         * symbols): one BiDirectionalStreamMarketData per instance holding market data, plus one per
         * further 1,000 symbols. Set it to the number of gateway instances; one fits a single instance.
         */
        reserve: count.default(1),
        /**
         * Distinct exchange topics that hold an upstream stream each (orders, positions, drop copy,
         * trades, instrument state) one client may hold, over all its connections on every instance.
         * Market-data topics are not counted here: they ride shared multiplexed streams and spend symbols.
         */
        maxTopicsPerClient: z.number().int().positive().default(10),
        /** Streams per team; teams not named split what the named ones leave evenly (see teamStreamShares). */
        teamShares: z.record(z.string(), count).default({}),
        /**
         * Market-data symbols the firm holds at once, cluster-wide. Every symbol rides on one multiplexed
         * stream per holding instance (upstream-facts: up to 1,000 symbols a stream), so symbols, not
         * streams, are what market-data topics spend.
         */
        marketDataSymbols: z.number().int().positive().default(1_000),
        /** Market-data symbols per team; teams not named split what the named ones leave evenly. */
        teamSymbolShares: z.record(z.string(), count).default({}),
        /** A holding not renewed for this long is gone: a crashed instance's streams come back after it. */
        holdingTtlMs: z.number().int().positive().default(15_000),
        renewEveryMs: z.number().int().positive().default(3_000),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((streams, ctx) => {
    const { firmStreams, reserve, teamShares, holdingTtlMs, renewEveryMs } = streams.exchange;
    const named = Object.values(teamShares).reduce((sum, share) => sum + share, 0);
    const marketDataStreams = Math.ceil(streams.exchange.marketDataSymbols / SYMBOLS_PER_STREAM);
    if (reserve < marketDataStreams) {
      ctx.addIssue({
        code: 'custom',
        path: ['exchange', 'reserve'],
        message: `must cover the ${marketDataStreams} market-data streams that ${streams.exchange.marketDataSymbols} symbols need`,
      });
    }
    if (reserve >= firmStreams)
      ctx.addIssue({ code: 'custom', path: ['exchange', 'reserve'], message: 'must leave teams at least one stream' });
    if (named > firmStreams - reserve) {
      ctx.addIssue({
        code: 'custom',
        path: ['exchange', 'teamShares'],
        message: `the shares sum to ${named}, more than the ${firmStreams - reserve} streams teams may take`,
      });
    }
    const namedSymbols = Object.values(streams.exchange.teamSymbolShares).reduce((sum, share) => sum + share, 0);
    if (namedSymbols > streams.exchange.marketDataSymbols) {
      ctx.addIssue({
        code: 'custom',
        path: ['exchange', 'teamSymbolShares'],
        message: `the shares sum to ${namedSymbols}, more than the ${streams.exchange.marketDataSymbols} symbols`,
      });
    }
    if (renewEveryMs * 2 > holdingTtlMs)
      ctx.addIssue({
        code: 'custom',
        path: ['exchange', 'renewEveryMs'],
        message: 'must be at most half of holdingTtlMs',
      });
  });

export type StreamsConfig = z.infer<typeof StreamsSchema>;

/** The config check the streams add to the app's schema: team shares and client overrides name configured teams and clients. */
export function streamsConfigCheck(
  config: { streams: StreamsConfig; teams: readonly { id: string }[]; clients: readonly { id: string }[] },
  ctx: z.RefinementCtx,
): void {
  const teams = new Set(config.teams.map((t) => t.id));
  for (const team of Object.keys(config.streams.exchange.teamShares)) {
    if (!teams.has(team))
      ctx.addIssue({
        code: 'custom',
        path: ['streams', 'exchange', 'teamShares', team],
        message: `unknown team "${team}"`,
      });
  }
  const clientIds = new Set(config.clients.map((c) => c.id));
  for (const id of Object.keys(config.streams.clients)) {
    if (!clientIds.has(id))
      ctx.addIssue({ code: 'custom', path: ['streams', 'clients', id], message: `unknown client "${id}"` });
  }
}

/**
 * Each team's share of the firm's exchange streams: the configured number, or an even split of what
 * the configured ones leave (firm streams less the reserve) among the others; the remainder of the
 * division goes one stream each to the first of them in config order, so no stream is left idle.
 */
export function teamStreamShares(streams: StreamsConfig, teams: readonly string[]): Record<string, number> {
  const { firmStreams, reserve, teamShares } = streams.exchange;
  return evenShares(firmStreams - reserve, teamShares, teams);
}

/** Each team's share of the firm's market-data symbols, split the same way. */
export function teamSymbolShares(streams: StreamsConfig, teams: readonly string[]): Record<string, number> {
  const { marketDataSymbols, teamSymbolShares: named } = streams.exchange;
  return evenShares(marketDataSymbols, named, teams);
}

function evenShares(
  total: number,
  configured: Record<string, number>,
  teams: readonly string[],
): Record<string, number> {
  const others = teams.filter((team) => configured[team] === undefined);
  const named = teams.reduce((sum, team) => sum + (configured[team] ?? 0), 0);
  const left = Math.max(0, total - named);
  const even = others.length > 0 ? Math.floor(left / others.length) : 0;
  const remainder = others.length > 0 ? left % others.length : 0;
  return Object.fromEntries(
    teams.map((team) => [team, configured[team] ?? even + (others.indexOf(team) < remainder ? 1 : 0)]),
  );
}
