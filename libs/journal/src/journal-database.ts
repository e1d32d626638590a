import type { JournalConfig } from './config/journal.config.js';

import { IdempotencyStore } from './idempotency/idempotency-store.js';
import { OrderJournal } from './journal/order-journal.js';
import { EmbeddedClient } from './sql/embedded-client.js';
import { MigratedClient } from './sql/migrated-client.js';
import { migrate } from './sql/migrations.js';
import { PgClient } from './sql/pg-client.js';
import type { SqlClient } from './sql/sql-client.js';

/** The opened store: the journal and the idempotency records, on the one database. */
export interface JournalDatabase {
  readonly db: SqlClient;
  readonly journal: OrderJournal;
  readonly keys: IdempotencyStore;
  /** `postgres` (a server) or `embedded` (PGlite under `journal.embeddedDir`). */
  readonly store: 'postgres' | 'embedded';
  close(): Promise<void>;
}

/**
 * Opens the configured store and brings its schema up to date: a PostgreSQL server when `journal.url`
 * is set (migrations through `migrationUrl`, the owner), else the embedded default. A server that
 * cannot be reached does not stop the start: `onUnavailable` hears why, and every use retries.
 */
export async function openJournalDatabase(
  config: JournalConfig,
  onUnavailable?: (error: unknown) => void,
): Promise<JournalDatabase> {
  const { schema } = config;
  let db: SqlClient;
  if (config.url) {
    const app = new PgClient({ url: config.url, poolSize: config.poolSize, timeoutMs: config.statementTimeoutMs });
    const migrated = new MigratedClient(app, async () => {
      const owner = new PgClient({
        url: config.migrationUrl ?? config.url!,
        poolSize: 1,
        timeoutMs: Math.max(config.statementTimeoutMs, 10_000),
      });
      try {
        await migrate(owner, schema, config.appRole);
      } finally {
        await owner.close();
      }
    });
    const failure = await migrated.warmUp();
    if (failure) onUnavailable?.(failure);
    db = migrated;
  } else {
    db = await EmbeddedClient.open(config.embeddedDir);
    await migrate(db, schema, config.appRole);
  }
  const journal = new OrderJournal(db, schema);
  return {
    db,
    journal,
    keys: new IdempotencyStore(db, schema, config.keyTtlHours * 3_600_000),
    store: config.url ? 'postgres' : 'embedded',
    // Records appended with appendSoon are written before the connections close.
    close: () => journal.flush().then(() => db.close()),
  };
}
