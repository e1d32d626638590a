/** Who a retail operation runs for: the key it is signed with and the team whose budget share it spends. */
export interface RetailCaller {
  account: string;
  team: string;
  /** The gateway client's id: its own bound on calls in flight (bulkheads). */
  client?: string;
  requestId?: string;
  /** `Prefer: wait` in ms, already capped by the gateway. */
  preferWaitMs?: number;
}

/** The parts of a RetailCall every operation takes from its caller. */
export function callerFields(caller: RetailCaller): {
  account: string;
  team: string;
  client?: string;
  requestId?: string;
  preferWaitMs?: number;
} {
  return {
    account: caller.account,
    team: caller.team,
    ...(caller.client === undefined ? {} : { client: caller.client }),
    ...(caller.requestId === undefined ? {} : { requestId: caller.requestId }),
    ...(caller.preferWaitMs === undefined ? {} : { preferWaitMs: caller.preferWaitMs }),
  };
}

/** Path segments are validated before here, and still go through the one encoder that refuses dot segments. */
export { pathSegment as segment } from '@lib/core';
