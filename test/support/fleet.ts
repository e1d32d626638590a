import type { GatewayProcess } from './gateway-process.js';
import { caller, spawnFleet } from './load.js';
import {
  PARTICIPANT,
  type Stack,
  type StackOptions,
  TEST_REDIS_COMMAND_TIMEOUT_MS,
  redisUrl,
  startStack,
  testRedisLimits,
} from './stack.js';
import type { GatewayConfigInput } from '../../apps/gateway/src/config/gateway-config.schema.js';

/** A sandbox (with the stack's in-process gateway, which stays out of the fleet) and gateway processes sharing one Redis key prefix. */
export interface Fleet {
  stack: Stack;
  processes: GatewayProcess[];
  /** fetch against each process with the `all` client's key. */
  calls: ReturnType<typeof caller>[];
  close(): Promise<void>;
}

/** The stack's config for a fleet process: Redis under the prefix `<name><pid>:` with the tests' command timeout, quiet logs, then `edit`. */
export function fleetConfig(
  stack: Stack,
  name: string,
  edit: (config: GatewayConfigInput) => GatewayConfigInput = (c) => c,
): GatewayConfigInput {
  return edit({
    ...stack.configInput,
    logging: { level: 'warn' },
    redis: {
      mode: 'single',
      url: redisUrl(),
      keyPrefix: `${name}${process.pid}:`,
      commandTimeoutMs: TEST_REDIS_COMMAND_TIMEOUT_MS,
    },
    limits: testRedisLimits(stack.configInput.limits),
  });
}

/**
 * The production Redis command timeout (the schema's default), for tests of a slow Redis path or a
 * starved CPU: there a late answer must cost capacity, never an overshoot.
 */
export function productionRedisTimeout(config: GatewayConfigInput): GatewayConfigInput {
  if (!config.redis) return config;
  const { commandTimeoutMs: _testTimeout, ...redis } = config.redis;
  return productionDecisionAge({ ...config, redis });
}

/**
 * The production limits.maxDecisionAgeMs (50 ms), for tests that judge a per-second limit: a budget
 * answer read later than that on a starved gateway is refused, so admitted requests cannot reach the
 * upstream bunched (the Redis command timeout may stay the tests' longer one: a late answer is not an outage).
 */
export function productionDecisionAge(config: GatewayConfigInput): GatewayConfigInput {
  const { maxDecisionAgeMs: _testAge, ...limits } = config.limits ?? {};
  return { ...config, limits };
}

export async function startFleet(
  name: string,
  count = 3,
  options: StackOptions = {},
  edit?: (config: GatewayConfigInput) => GatewayConfigInput,
): Promise<Fleet> {
  const stack = await startStack(options);
  let processes: GatewayProcess[];
  try {
    processes = await spawnFleet(fleetConfig(stack, name, edit), count);
  } catch (error) {
    await stack.close();
    throw error;
  }
  return {
    stack,
    processes,
    calls: processes.map((gateway) => caller(gateway.url, stack.keys.all)),
    close: async () => {
      await Promise.all(processes.map((gateway) => gateway.stop()));
      await stack.close();
    },
  };
}

/**
 * Tests about the spec §8 buckets push one retail key past the 20 requests/s per key (upstream-facts),
 * which would then decide everything; they lift it on the gateway (this config edit) and on the
 * sandbox (resetRetailLimits). The per-key figure has its own test (ratelimit-keys).
 */
export function withoutKeyRate(config: GatewayConfigInput): GatewayConfigInput {
  return {
    ...config,
    limits: { ...config.limits, buckets: { ...config.limits?.buckets, 'retail.key': { limit: 100_000 } } },
  };
}

/** The sandbox's spec §8 retail limits afresh, without the per-key second (see withoutKeyRate). */
export function resetRetailLimits(stack: Stack): void {
  stack.sandbox.state.retail.limiter.reset();
  stack.sandbox.state.retail.limiter.perKey.limit = 'off';
}

/** A client whose calls a load balancer spreads over the fleet (the per-client throttle's subject). */
export const LOOP_BOT = {
  id: 'loop',
  team: 'trading',
  scopes: ['write:orders' as const, 'read:orders' as const],
  participants: [PARTICIPANT],
};

/** The config edit that limits LOOP_BOT to `rate` order-entering calls per second (risk.limits maxOrdersPerSecond). */
export const throttled =
  (rate: number) =>
  (config: GatewayConfigInput): GatewayConfigInput => ({
    ...config,
    risk: { limits: [{ scope: 'client', id: LOOP_BOT.id, maxOrdersPerSecond: rate }] },
  });
