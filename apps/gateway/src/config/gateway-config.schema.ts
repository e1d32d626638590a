import { GatewayConfigSchema } from '@lib/core';
import { CATALOG_BUCKET_NAMES, catalogConfigCheck } from '@lib/catalog';
import { EXCHANGE_BUCKET_NAMES } from '@lib/exchange';
import { declaredBucketsCheck } from '@lib/ratelimit';
import { RETAIL_BUCKET_NAMES } from '@lib/retail';

/** Every upstream bucket the gateway's surfaces declare (each lib owns its list, next to its calls). */
export const GATEWAY_BUCKET_NAMES: readonly string[] = [
  ...RETAIL_BUCKET_NAMES,
  ...EXCHANGE_BUCKET_NAMES,
  ...CATALOG_BUCKET_NAMES,
];

/**
 * The gateway's one config schema: @lib/core's sections, with what only the libs know checked against
 * their declarations (so a typo fails at start, every key listed): `limits.buckets` overrides and team
 * shares name declared buckets, `catalog.ttlSeconds` names catalog routes.
 */
export const GatewayAppConfigSchema = GatewayConfigSchema.superRefine(
  declaredBucketsCheck(GATEWAY_BUCKET_NAMES),
).superRefine(catalogConfigCheck);
