// Prints a fresh internal API key once, and the hash line to paste into the gateway config.
import { parseArgs } from 'node:util';

import { generateApiKey, hashApiKey } from '@lib/auth';

const { values } = parseArgs({ options: { client: { type: 'string' } } });
if (!values.client || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(values.client)) {
  process.stderr.write('usage: npm run keys:new -- --client <id>\n');
  process.exit(2);
}
const key = generateApiKey();
process.stdout.write(
  [
    `API key for client "${values.client}" (shown once; give it to the client, store it nowhere else):`,
    '',
    `  ${key}`,
    '',
    'Paste into the clients section of the gateway config:',
    '',
    `  - id: ${values.client}`,
    `    team: <team id>`,
    `    keyHash: ${hashApiKey(key)}`,
    `    scopes: [read:marketdata]`,
    '',
  ].join('\n'),
);
