import { FanoutHub } from '@lib/fanout';

import { type Stack, startStack } from './support/stack.js';
import { WsClients } from './support/ws-client.js';

/**
 * A subscribe followed at once by an unsubscribe of the same topic, before the subscribe's join completed
 * (found by a probe): the unsubscribe was acknowledged, yet the join then made the connection a subscriber,
 * it kept getting the topic's frames, and the topic was no longer counted against the connection's 100.
 * Now the unsubscribe waits for the subscribe under way: no frame of the topic after its ack.
 */
let stack: Stack;
const clients = new WsClients();
beforeAll(async () => {
  stack = await startStack({ clients: [{ id: 'ops', scopes: ['admin'] }] });
});
afterAll(async () => {
  clients.closeAll();
  await stack.close();
});

const TOPIC = 'ops.overview';

it('an acknowledged unsubscribe leaves no subscription behind', async () => {
  const ws = await clients.connect(stack, 'ops');
  ws.send({ type: 'subscribe', id: 's1', topics: [TOPIC] });
  ws.send({ type: 'unsubscribe', id: 'u1', topics: [TOPIC] });
  await ws.next((f) => f.type === 'ack' && f.id === 'u1');
  const afterUnsub = ws.frames.length;
  // Let the subscribe settle, then look for a few of the topic's per-second snapshots.
  await new Promise((resolve) => setTimeout(resolve, 3_500));
  const later = ws.frames.slice(afterUnsub).filter((f) => f.topic === TOPIC && f.type !== 'error');
  const hub = stack.gateway.get(FanoutHub);
  expect(hub.info(TOPIC)?.subscribers ?? 0).toBe(0);
  expect(later.filter((f) => f.type !== 'ack')).toEqual([]);
});
