import { setTimeout as sleep } from 'node:timers/promises';

import type { Decision } from '../budget/decision.js';
import { planId, type TakeRequest } from '../budget/take-plan.js';
import { BudgetWaitTooLongError } from './budget-wait.error.js';

interface Waiter {
  request: TakeRequest;
  deadline: number;
  enqueuedAt: number;
  resolve(decision: Decision): void;
  reject(error: Error): void;
}

interface Queue {
  waiters: Waiter[];
  pumping: boolean;
}

/**
 * First-in first-out waiting for budget. One queue per request shape (class, team, buckets): a cancel
 * never waits behind a read, and a request never waits behind another that needs other buckets.
 * Sleeping happens here, in the instance, never in Redis.
 */
export class WaitQueues {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly take: (request: TakeRequest) => Promise<Decision>,
    private readonly maxQueued: number,
    private readonly onAllowed: (request: TakeRequest, waitedMs: number) => void,
  ) {}

  async takeOrWait(request: TakeRequest, maxWaitMs: number): Promise<Decision> {
    const key = planId(request);
    if (!this.queues.has(key)) {
      const decision = await this.take(request);
      if (decision.allowed) {
        this.onAllowed(request, 0);
        return decision;
      }
      if (decision.retryAfterMs > maxWaitMs) throw new BudgetWaitTooLongError(decision, maxWaitMs);
    }
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = { waiters: [], pumping: false }));
    if (queue.waiters.length >= this.maxQueued) throw new BudgetWaitTooLongError(undefined, maxWaitMs, request);
    const now = performance.now(); // deadlines are intervals: a wall-clock step must not move them
    const waiting = new Promise<Decision>((resolve, reject) =>
      queue.waiters.push({ request, deadline: now + maxWaitMs, enqueuedAt: now, resolve, reject }),
    );
    void this.pump(key, queue);
    return waiting;
  }

  /** Requests waiting now, per queue. */
  sizes(): Record<string, number> {
    return Object.fromEntries([...this.queues].map(([key, q]) => [key, q.waiters.length]));
  }

  private async pump(key: string, queue: Queue): Promise<void> {
    if (queue.pumping) return;
    queue.pumping = true;
    try {
      while (queue.waiters.length > 0) {
        const head = queue.waiters[0];
        let decision: Decision;
        try {
          decision = await this.take(head.request);
        } catch (error) {
          queue.waiters.shift();
          head.reject(error instanceof Error ? error : new Error(String(error)));
          continue;
        }
        const now = performance.now(); // deadlines are intervals: a wall-clock step must not move them
        if (decision.allowed) {
          queue.waiters.shift();
          this.onAllowed(head.request, now - head.enqueuedAt);
          head.resolve(decision);
          continue;
        }
        // Nobody behind the head can pass before it: refuse at once whoever would miss their deadline.
        const passable = now + decision.retryAfterMs;
        const late = queue.waiters.filter((w) => passable > w.deadline);
        queue.waiters = queue.waiters.filter((w) => passable <= w.deadline);
        for (const w of late) w.reject(new BudgetWaitTooLongError(decision, w.deadline - w.enqueuedAt));
        if (queue.waiters.length > 0) await sleep(Math.max(1, decision.retryAfterMs));
      }
    } finally {
      queue.pumping = false;
      if (queue.waiters.length === 0 && this.queues.get(key) === queue) this.queues.delete(key);
    }
  }
}
