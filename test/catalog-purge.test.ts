import { createRedisClient } from '@lib/core';

import { RedisCatalogStore } from '../libs/catalog/src/cache/redis-catalog.store.js';
import type { PurgeMatch } from '../libs/catalog/src/cache/catalog-store.js';
import { redisUrl } from './support/stack.js';
import { StallProxy } from './support/stall-proxy.js';

// Issue 18: catalog purge is at least once. An instance whose purge subscription was not yet confirmed
// or dropped may have missed purges, so it drops its whole local tier once the subscription is confirmed.

const eventually = async (condition: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('catalog purge across instances', () => {
  it('reaches a connected instance, and one that missed purges while disconnected drops its local tier on reconnecting', async () => {
    const port = Number(new URL(redisUrl()).port);
    const proxy = await StallProxy.start(port);
    const prefix = `t${process.pid}:purge:`;
    const client = (url: string) =>
      createRedisClient({ mode: 'single', url, keyPrefix: '', commandTimeoutMs: 500, connectTimeoutMs: 500 });
    const [purging, listening] = [client(redisUrl()), client(proxy.url)];
    listening.on('error', () => undefined);
    const [a, b] = [new RedisCatalogStore(purging, prefix), new RedisCatalogStore(listening, prefix)];
    const heard: PurgeMatch[] = [];
    b.onPurge((match) => heard.push(match));
    try {
      // Anything b copied before its subscription was confirmed may have missed a purge: it drops it all.
      await eventually(() => heard.length === 1, "b's subscription to be confirmed");
      expect(heard).toEqual([{}]);
      await a.purge({ route: 'markets' });
      await eventually(() => heard.length === 2, 'the purge to reach b');
      expect(heard[1]).toEqual({ route: 'markets' });

      proxy.cut();
      await a.purge({ route: 'events' }); // b cannot hear this one
      proxy.restore();
      await eventually(() => heard.length === 3, 'b to drop its local tier on reconnecting');
      expect(heard[2]).toEqual({});
    } finally {
      await Promise.all([a.close(), b.close()]);
      await Promise.all([purging.quit(), listening.quit().catch(() => listening.disconnect())]);
      await proxy.close();
    }
  });
});
