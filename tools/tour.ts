// `npm run tour`: a guided first five minutes against the gateway `npm start` runs. It reads the demo key
// npm start left in .dev/demo-key (or GATEWAY_KEY) and the URL from GATEWAY_URL (default :8080).
import { readFileSync } from 'node:fs';

import { runTour, TourError } from './tour-steps.js';

const url = process.env.GATEWAY_URL ?? 'http://127.0.0.1:8080';
let key = process.env.GATEWAY_KEY;
try {
  key ??= readFileSync('.dev/demo-key', 'utf8').trim();
} catch {
  process.stderr.write(
    'No demo key: start the gateway with `npm start` first (it writes .dev/demo-key), or set GATEWAY_KEY.\n',
  );
  process.exit(1);
}

try {
  await runTour({ url, key, write: (line) => process.stdout.write(`${line}\n`) });
} catch (error) {
  const reason =
    error instanceof TourError ? error.message : `${(error as Error).message} (is \`npm start\` running at ${url}?)`;
  process.stderr.write(`The tour stopped: ${reason}\n`);
  process.exit(1);
}
