// `npm run journal:verify`: walks the order journal's hash chain from its first record and names every
// record that is missing, out of order or altered. Reads the gateway config (GATEWAY_CONFIG, default
// config/gateway.yaml; JOURNAL_URL overrides the database), or `--embedded <dir>` for npm start's store.
// Exit 0: the chain is whole; 1: it is broken; 2: the journal cannot be read.
import { parseArgs } from 'node:util';

import { loadGatewayConfig } from '@lib/core';
import { type JournalConfig, JournalSchema, openJournalDatabase } from '@lib/journal';

import { GatewayAppConfigSchema } from '../apps/gateway/src/config/gateway-config.schema.js';

const { values } = parseArgs({ options: { embedded: { type: 'string' }, schema: { type: 'string' } } });

async function main(): Promise<number> {
  const configured: JournalConfig = values.embedded
    ? JournalSchema.parse({ embeddedDir: values.embedded })
    : loadGatewayConfig(GatewayAppConfigSchema).journal;
  const config = values.schema ? { ...configured, schema: values.schema } : configured;
  const database = await openJournalDatabase(config);
  try {
    const result = await database.journal.verify();
    const where =
      database.store === 'postgres' ? `PostgreSQL schema ${config.schema}` : `embedded store ${config.embeddedDir}`;
    if (result.breaks.length === 0) {
      process.stdout.write(`journal chain intact: ${result.checked} records verified (${where})\n`);
      return 0;
    }
    process.stdout.write(
      `journal chain BROKEN: ${result.breaks.length} problem(s) in ${result.checked} records (${where})\n`,
    );
    for (const problem of result.breaks.slice(0, 50))
      process.stdout.write(`  record ${problem.seq}: ${problem.reason}\n`);
    return 1;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`cannot read the journal: ${error.message}\n`);
    process.exit(2);
  },
);
