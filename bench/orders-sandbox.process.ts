// The sandbox of `npm run bench orders` in a process of its own (bench/exchange-orders.ts starts it,
// with bench/process-probe.ts loaded): it trades the order targets' firms, tells its parent its URLs
// and keys over IPC, answers its insert counter when asked, and closes on SIGTERM.
import 'reflect-metadata';

import { Logger } from '@nestjs/common';

import { startSandbox } from '../apps/sandbox/src/sandbox.js';
import { ORDER_FIRMS } from './order-firms.js';

Logger.overrideLogger(false);
const keyDir = process.env.ORDERS_SANDBOX_KEY_DIR!;
const sandbox = await startSandbox({
  ports: { auth: 0, exchange: 0, grpc: 0, retail: 0, catalog: 0 },
  keyDir,
  logLevel: 'silent',
  exchange: {
    tokenTtlSeconds: 3_600,
    limits: { 'order-entry': 'off' },
    clients: ORDER_FIRMS.map((firm) => ({ clientId: firm.toLowerCase(), firm, users: ['alice'] })),
  },
});
process.on('message', (message: { counter?: string }) => {
  if (message.counter !== undefined)
    process.send?.({ counter: message.counter, value: sandbox.state.counter(message.counter) });
});
process.once('SIGTERM', () => void sandbox.close().then(() => process.exit(0)));
process.send?.({ ready: true, urls: sandbox.urls, keys: sandbox.keys });
