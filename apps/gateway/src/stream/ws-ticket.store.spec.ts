import { ErrorCode, SystemClock, createRedisClient } from '@lib/core';

import { WsTicketStore } from './ws-ticket.store.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

describe(WsTicketStore.name, () => {
  it('refuses to issue a ticket with 503 (not 500) while Redis is unreachable, and redeems none', async () => {
    // Port 9 (discard) has no Redis behind it: every command fails at once (no offline queue).
    const redis = createRedisClient({
      mode: 'single',
      url: 'redis://127.0.0.1:9',
      keyPrefix: '',
      commandTimeoutMs: 200,
      connectTimeoutMs: 200,
    });
    redis.on('error', () => undefined);
    const sut = new WsTicketStore({ redis: { keyPrefix: 't:' } } as GatewayConfig, redis, new SystemClock());
    try {
      await expect(sut.issue('client-a')).rejects.toMatchObject({ code: ErrorCode.SERVICE_UNAVAILABLE });
      expect(await sut.redeem('anything')).toBeUndefined();
    } finally {
      redis.disconnect();
    }
  });
});
