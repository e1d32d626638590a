import type { GatewayConfig } from '@lib/core';

/** The validated `limits` section, with every bucket resolved to numbers (defaults = documented limits). */
export type LimitsConfig = GatewayConfig['limits'];
export type BucketName = keyof LimitsConfig['buckets'];
export type RequestClass = LimitsConfig['failClosed'][number];
export type TeamConfig = GatewayConfig['teams'][number];
export type BucketScope = LimitsConfig['buckets'][BucketName]['scope'];
