import type { TeamShares } from '../config/limits.config.js';

export type { BucketScope, LimitsConfig, RequestClass } from '../config/limits.config.js';
/** A bucket's stable name (`<surface>.<group>.<operation>`), declared by the surface lib that spends it. */
export type BucketName = string;
/** What the limiter reads of a team's entry (`teams[]`). */
export interface TeamConfig {
  id: string;
  shares?: TeamShares;
}
