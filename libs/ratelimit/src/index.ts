export { RateLimitModule } from './ratelimit.module.js';
export {
  BUCKET_SCOPES,
  LimitsSchema,
  LimitsTeamFields,
  REQUEST_CLASSES,
  TeamSharesSchema,
  type BucketOverride,
  type BucketScope,
  type LimitsConfig,
  type RequestClass,
  type TeamShares,
} from './config/limits.config.js';
export { RateLimiter, type CoolDownOptions, type RateLimiterDeps } from './rate-limiter.service.js';
export { BucketRegistry, type BucketSpec } from './budget/bucket-registry.js';
export { resolveBucket, type BucketDeclaration, type ResolvedBucketLimit } from './budget/bucket-declaration.js';
export { declaredBucketsCheck } from './budget/declared-buckets.js';
export type { BudgetMode, BucketReading, BudgetedReply, Decision, LimitedBy } from './budget/decision.js';
export type { BucketName } from './budget/limits.types.js';
export { PriorityLane } from './budget/priority-lane.js';
export { budgetFor, routeBudget, type RouteBudget } from './budget/route-budgets.js';
export type { TakeRequest } from './budget/take-plan.js';
export { rateLimitHeaders, rateLimitedError, withPreferenceApplied } from './http/rate-limit-headers.js';
export type { BucketView, InstanceView, LimitsMode, LimitsView, TeamBucketView } from './observe/limits-view.js';
export type { UsageCount } from './observe/team-usage.js';
export { BudgetWaitTooLongError } from './waiting/budget-wait.error.js';
export { BudgetGate, type CoolDownRequest } from './gate/budget-gate.js';
export { LocalTokenBucket } from './local/local-token-bucket.js';
export { KeyedBuckets } from './local/keyed-buckets.js';
