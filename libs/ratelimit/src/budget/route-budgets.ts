import type { BucketName, RequestClass } from './limits.types.js';
import type { TakeRequest } from './take-plan.js';

/**
 * What one upstream operation spends: its buckets, all taken at once, and its priority class. Each
 * surface lib declares its operations' budgets next to the calls (EXCHANGE_BUDGETS, RETAIL_BUDGETS,
 * CATALOG_BUDGETS) with the buckets it declares.
 */
export interface RouteBudget {
  readonly buckets: readonly BucketName[];
  readonly class: RequestClass;
  /** The priority lane (take-plan.ts PRIORITY_LANE): the kill switch's cancels only. */
  readonly priority?: boolean;
}

/** The budget of an operation that spends `buckets` as a `klass` request. */
export const routeBudget = (klass: RequestClass, ...buckets: BucketName[]): RouteBudget => ({ buckets, class: klass });

/**
 * A take request for a route on behalf of a team; `cost` counts the operations of a batch where a bucket
 * counts them; `account` names the retail API key for per-key buckets.
 */
export function budgetFor(
  route: RouteBudget,
  team: string | undefined,
  cost?: number,
  account?: string,
  laneInUse = false,
): TakeRequest {
  const lane = route.priority ? { priority: true } : laneInUse && route.class === 'cancel' ? { yieldsLane: true } : {};
  return {
    buckets: route.buckets,
    class: route.class,
    ...lane,
    ...(team === undefined ? {} : { team }),
    ...(cost === undefined ? {} : { cost }),
    ...(account === undefined ? {} : { account }),
  };
}
