import { type GatewayConfig, teamStreamShares, teamSymbolShares } from '@lib/core';
import { EXCHANGE_STREAM_POOL, EXCHANGE_SYMBOL_POOL } from '@lib/exchange';
import type { CapacitySettings } from '@lib/fanout';

/**
 * The hub's caps from the `streams` section: the firm's exchange streams (for topic families that
 * hold a stream each) and its market-data symbols (market-data topics share one multiplexed stream),
 * each with team shares and the per-client cap on distinct exchange topics.
 */
export function streamCapacity(config: GatewayConfig): CapacitySettings {
  const { exchange } = config.streams;
  const teams = config.teams.map((team) => team.id);
  return {
    pools: {
      [EXCHANGE_STREAM_POOL]: {
        capacity: exchange.firmStreams - exchange.reserve,
        teamShares: teamStreamShares(config.streams, teams),
        clientTopics: exchange.maxTopicsPerClient,
      },
      [EXCHANGE_SYMBOL_POOL]: {
        capacity: exchange.marketDataSymbols,
        teamShares: teamSymbolShares(config.streams, teams),
        clientTopics: exchange.maxTopicsPerClient,
      },
    },
    holdingTtlMs: exchange.holdingTtlMs,
    renewEveryMs: exchange.renewEveryMs,
  };
}
