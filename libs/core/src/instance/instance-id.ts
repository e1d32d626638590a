import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * An instance id, `host:pid:8 hex` (the one format): readable in Redis keys, lease values and the ops
 * console, and unique even for two limiters or hubs one process builds (tests do).
 */
export function newInstanceId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** This process's instance id: the one the rate limiter, the fan-out and the ops snapshot name it by. */
export const INSTANCE_ID = newInstanceId();
