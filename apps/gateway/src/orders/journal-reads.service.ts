import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, GATEWAY_CONFIG } from '@lib/core';

import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** Past the team's share of journal reads: 429, the read never took a connection. */
export class JournalReadsLimitedError extends DomainError {
  constructor(team: string, limit: number) {
    super(
      ErrorCode.IN_FLIGHT_LIMITED,
      `team ${team} already has ${limit} journal reads in flight; retry when one has been answered.`,
      {
        headers: { 'Retry-After': '1' },
        extensions: { cap: 'journal.readsPerTeam', limit, surface: 'journal', lane: 'ordinary' },
      },
    );
  }
}

interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout;
}

/**
 * The journal's reading routes share the connection pool the order path writes ahead through. Reads
 * may take at most half the pool, split evenly among the teams: one team's burst of heavy reads waits
 * here (at most the statement timeout, then 429) instead of queueing every other team's orders behind
 * it in the pool until they are refused 503 JOURNAL_UNAVAILABLE.
 */
@Injectable()
export class JournalReads {
  private readonly perTeam: number;
  private readonly waitMs: number;
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, Waiter[]>();

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    const teams = Math.max(1, config.teams.length);
    this.perTeam = Math.max(1, Math.floor(config.journal.poolSize / 2 / teams));
    this.waitMs = config.journal.statementTimeoutMs;
  }

  /** Runs `read` once the team holds one of its places, and gives the place back after. */
  async run<T>(team: string, read: () => Promise<T>): Promise<T> {
    await this.enter(team);
    try {
      return await read();
    } finally {
      this.leave(team);
    }
  }

  private enter(team: string): Promise<void> {
    const held = this.inFlight.get(team) ?? 0;
    if (held < this.perTeam) {
      this.inFlight.set(team, held + 1);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(team) ?? [];
      this.waiting.set(team, queue);
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(waiter), 1);
          reject(new JournalReadsLimitedError(team, this.perTeam));
        }, this.waitMs),
      };
      queue.push(waiter);
    });
  }

  /** The place passes to the team's next waiting read, or is freed. */
  private leave(team: string): void {
    const next = this.waiting.get(team)?.shift();
    if (next) return next.admit();
    const held = (this.inFlight.get(team) ?? 1) - 1;
    if (held > 0) this.inFlight.set(team, held);
    else {
      this.inFlight.delete(team);
      this.waiting.delete(team);
    }
  }
}
