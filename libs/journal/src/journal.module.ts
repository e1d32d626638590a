import { Global, Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { GATEWAY_CONFIG, Readiness, type ReadinessReport } from '@lib/core';

import type { JournalConfig } from './config/journal.config.js';
import { type JournalDatabase, openJournalDatabase } from './journal-database.js';

export const JOURNAL_DATABASE = Symbol('JOURNAL_DATABASE');

/**
 * Reports the journal's database in readiness (`journal`: degraded while it does not answer, never down:
 * new orders are refused 503 JOURNAL_UNAVAILABLE then, but cancels and reads still need the instance,
 * and every instance shares the one database), and closes its connections when the application stops.
 */
@Injectable()
class JournalLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(JOURNAL_DATABASE) private readonly database: JournalDatabase,
    @Inject(GATEWAY_CONFIG) config: { journal: JournalConfig },
    readiness: Readiness,
  ) {
    if (config.journal.enabled) readiness.register('journal', () => this.readiness());
  }

  private async readiness(): Promise<ReadinessReport> {
    const started = performance.now();
    try {
      await this.database.db.query('SELECT 1');
      return {
        status: 'up',
        details: { store: this.database.store, latencyMs: Math.round(performance.now() - started) },
      };
    } catch {
      return {
        status: 'degraded',
        details: { store: this.database.store, reason: 'the database does not answer: new orders are refused' },
      };
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}

/** The order journal and idempotency records (config section `journal`), opened and migrated at boot. */
@Global()
@Module({
  providers: [
    {
      provide: JOURNAL_DATABASE,
      inject: [GATEWAY_CONFIG],
      useFactory: (config: { journal: JournalConfig }) =>
        openJournalDatabase(config.journal, (error) =>
          new Logger('OrderJournal').error(
            `the journal's database cannot be reached; new orders are refused until it can: ${(error as Error).message}`,
          ),
        ),
    },
    JournalLifecycle,
  ],
  exports: [JOURNAL_DATABASE],
})
export class JournalModule {}
