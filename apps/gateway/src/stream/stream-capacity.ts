import { EXCHANGE_STREAM_POOL, EXCHANGE_SYMBOL_POOL } from '@lib/exchange';
import type { CapacitySettings } from '@lib/fanout';
import type { GatewayConfig } from '../config/gateway-config.schema.js';
import { type ClientStreamsConfig, teamStreamShares, teamSymbolShares } from './streams.config.js';

/**
 * The hub's caps from the `streams` section: the firm's exchange streams (for topic families that
 * hold a stream each) and its market-data symbols (market-data topics share one multiplexed stream),
 * each with team shares. A client's distinct topics are capped in the stream pool, where each topic
 * holds an upstream stream; in the symbol pool only its team's share limits it, unless the client has
 * a cap of its own (`streams.clients.<id>`).
 */
export function streamCapacity(config: GatewayConfig): CapacitySettings {
  const { exchange, clients } = config.streams;
  const teams = config.teams.map((team) => team.id);
  return {
    pools: {
      [EXCHANGE_STREAM_POOL]: {
        capacity: exchange.firmStreams - exchange.reserve,
        teamShares: teamStreamShares(config.streams, teams),
        clientTopics: exchange.maxTopicsPerClient,
        clientOverrides: overrides(clients, 'maxExchangeTopics'),
      },
      [EXCHANGE_SYMBOL_POOL]: {
        capacity: exchange.marketDataSymbols,
        teamShares: teamSymbolShares(config.streams, teams),
        // No client can hold more symbols than the pool: the team's share is the cap that binds.
        clientTopics: exchange.marketDataSymbols,
        clientOverrides: overrides(clients, 'maxMarketDataSymbols'),
      },
    },
    holdingTtlMs: exchange.holdingTtlMs,
    renewEveryMs: exchange.renewEveryMs,
  };
}

function overrides(
  clients: Record<string, ClientStreamsConfig>,
  key: 'maxExchangeTopics' | 'maxMarketDataSymbols',
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(clients).flatMap(([id, caps]) => (caps[key] === undefined ? [] : [[id, caps[key]]])),
  );
}
