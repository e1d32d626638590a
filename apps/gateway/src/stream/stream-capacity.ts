import { type GatewayConfig, teamStreamShares } from '@lib/core';
import { EXCHANGE_STREAM_POOL } from '@lib/exchange';
import type { CapacitySettings } from '@lib/fanout';

/** The hub's stream caps from the `streams` section: the exchange pool, its team shares and client cap. */
export function streamCapacity(config: GatewayConfig): CapacitySettings {
  const { exchange } = config.streams;
  return {
    pools: {
      [EXCHANGE_STREAM_POOL]: {
        capacity: exchange.firmStreams - exchange.reserve,
        teamShares: teamStreamShares(config.streams, config.teams.map((team) => team.id)),
        clientTopics: exchange.maxTopicsPerClient,
      },
    },
    holdingTtlMs: exchange.holdingTtlMs,
    renewEveryMs: exchange.renewEveryMs,
  };
}
