import type { CoreConfig } from '@lib/core';

export type { BucketScope, LimitsConfig, RequestClass } from '@lib/core';
/** A bucket's stable name (`<surface>.<group>.<operation>`), declared by the surface lib that spends it. */
export type BucketName = string;
export type TeamConfig = CoreConfig['teams'][number];
