import { Inject, Injectable } from '@nestjs/common';
import { Bulkheads, GATEWAY_CONFIG, type OwnPool } from '@lib/core';

import type { GatewayConfig } from '../config/gateway-config.schema.js';

/**
 * The journal's reading routes share the connection pool the order path writes ahead through. Reads
 * may take at most half the pool, split evenly among the teams: one team's burst of heavy reads waits
 * in the bulkheads (at most the statement timeout, then 429 naming `journal.readsPerTeam`) instead of
 * queueing every other team's orders behind it in the pool until they are refused 503 JOURNAL_UNAVAILABLE.
 */
@Injectable()
export class JournalReads {
  private readonly pool: OwnPool;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly bulkheads: Bulkheads,
  ) {
    const teams = Math.max(1, config.teams.length);
    this.pool = {
      name: 'journal',
      cap: 'journal.readsPerTeam',
      perTeam: Math.max(1, Math.floor(config.journal.poolSize / 2 / teams)),
      waitMs: config.journal.statementTimeoutMs,
    };
  }

  /** Runs `read` once the team holds one of its places, and gives the place back after. */
  run<T>(team: string, read: () => Promise<T>): Promise<T> {
    return this.bulkheads.run(this.pool, team, read);
  }
}
