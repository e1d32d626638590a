// `npm run client:generate`: fetches the running gateway's OpenAPI document (npm start, or GATEWAY_URL)
// and writes packages/client/openapi.json and the REST types generated from it.
import { writeFileSync } from 'node:fs';

import { OPENAPI_FILE, SCHEMA_FILE, openApiText, schemaTypesOf } from './client-types.js';

const url = `${process.env.GATEWAY_URL ?? 'http://127.0.0.1:8080'}/docs/json`;
const res = await fetch(url).catch((error: Error) => {
  process.stderr.write(`Cannot fetch ${url}: ${error.message} (is \`npm start\` running?)\n`);
  process.exit(1);
});
const document: unknown = await res.json();
writeFileSync(OPENAPI_FILE, openApiText(document));
writeFileSync(SCHEMA_FILE, await schemaTypesOf(document));
process.stdout.write(`Wrote ${OPENAPI_FILE} and ${SCHEMA_FILE} from ${url}\n`);
