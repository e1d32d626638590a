import { AsyncLocalStorage } from 'node:async_hooks';

/** One try of an upstream call, announced after its budget decision, just before it is sent. */
export interface UpstreamSend {
  surface: string;
  method: string;
  /** The path, without host or query. */
  path: string;
  /** The budget class the try spent ('read', 'write', 'cancel'), or undefined for a route without a published limit. */
  budgetClass: string | undefined;
  /** 1, or 2 for the one resend after a 401. */
  attempt: number;
}

export type SendHook = (send: UpstreamSend) => void;

/** A try that enters or changes orders: it spends neither the read nor the cancel budget (the tries the order path's send guards judge). */
export function entersOrders(send: UpstreamSend): boolean {
  return send.budgetClass !== 'read' && send.budgetClass !== 'cancel';
}

const hooks = new AsyncLocalStorage<SendHook>();

/** Runs `work` with `hook` told of every upstream try it makes (the order journal's `sent` record). */
export function onUpstreamSend<T>(hook: SendHook, work: () => Promise<T>): Promise<T> {
  return hooks.run(hook, work);
}

/** Tells the current hook, if any, of a try about to be sent; a hook never holds up or breaks the send. */
export function announceSend(send: UpstreamSend): void {
  const hook = hooks.getStore();
  if (!hook) return;
  try {
    hook(send);
  } catch {
    // The send goes on: the hook's owner logs its own failures.
  }
}

/**
 * Checked once per try right before it is sent, after its budget decision: throws the refusal to stop
 * the try (nothing sent; its budget is given back). Synchronous: a try never waits between its budget
 * and its send. The order path's send-time trading-state check (issue 26).
 */
export type SendGuard = (send: UpstreamSend) => void;

const guards = new AsyncLocalStorage<SendGuard>();

/** Runs `work` with every upstream try it makes checked by `guard` first (see SendGuard), after the guard it runs within, if any. */
export function guardUpstreamSend<T>(guard: SendGuard, work: () => Promise<T>): Promise<T> {
  const outer = guards.getStore();
  return guards.run(
    outer
      ? (send) => {
          outer(send);
          guard(send);
        }
      : guard,
    work,
  );
}

/** Runs the current guard, if any, on a try about to be sent: throws its refusal. */
export function checkSend(send: UpstreamSend): void {
  guards.getStore()?.(send);
}
