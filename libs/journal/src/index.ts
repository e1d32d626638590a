export { canonicalJson } from './chain/canonical-json.js';
export { ChainVerifier, GENESIS_HASH, chainHash, type ChainBreak } from './chain/hash-chain.js';
export {
  IdempotencyStore,
  type IdempotencyClaim,
  type IdempotencyRecord,
  type IdempotencyState,
} from './idempotency/idempotency-store.js';
export { OrderJournal } from './journal/order-journal.js';
export { type JournalEntry, type JournalKind, type JournalRecord, provesOrder } from './journal/journal-record.js';
export { type JournalDatabase, openJournalDatabase } from './journal-database.js';
export { type JournalConfig, JournalSchema } from './config/journal.config.js';
export { JOURNAL_DATABASE, JournalModule } from './journal.module.js';
export { MIGRATIONS, migrate } from './sql/migrations.js';
export { PgClient } from './sql/pg-client.js';
export type { SqlClient } from './sql/sql-client.js';
