import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

import { Global, Module } from '@nestjs/common';

/**
 * An instance id, `host:pid:8 hex` (the one format): readable in Redis keys, lease values and the ops
 * console, and unique even for two limiters or hubs one process builds (tests do).
 */
export function newInstanceId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/**
 * The DI token of this application's instance id: the one the rate limiter, the fan-out and the ops
 * snapshot name it by. One per Nest application, not per process: two gateways one test process
 * builds are two instances (they must not share a lease or a usage key).
 */
export const INSTANCE_ID = Symbol('INSTANCE_ID');

@Global()
@Module({
  exports: [INSTANCE_ID],
  providers: [{ provide: INSTANCE_ID, useFactory: newInstanceId }],
})
export class InstanceIdModule {}
