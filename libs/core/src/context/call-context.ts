import { AsyncLocalStorage } from 'node:async_hooks';

/** What the inbound request says about how its upstream calls should behave, without plumbing it through every route. */
export interface CallContext {
  /** `Prefer: wait=<seconds>` (RFC 7240), already capped: queue for budget this long rather than answer 429. */
  preferWaitMs?: number;
}

/** Set by the gateway around each request handler; read by the upstream budget gate. */
export const callContext = new AsyncLocalStorage<CallContext>();
