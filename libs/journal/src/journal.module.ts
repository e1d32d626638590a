import { Global, Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { GATEWAY_CONFIG } from '@lib/core';

import type { JournalConfig } from './config/journal.config.js';
import { type JournalDatabase, openJournalDatabase } from './journal-database.js';

export const JOURNAL_DATABASE = Symbol('JOURNAL_DATABASE');

/** Closes the journal's connections when the application stops. */
@Injectable()
class JournalShutdown implements OnApplicationShutdown {
  constructor(@Inject(JOURNAL_DATABASE) private readonly database: JournalDatabase) {}

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
    JournalShutdown,
  ],
  exports: [JOURNAL_DATABASE],
})
export class JournalModule {}
