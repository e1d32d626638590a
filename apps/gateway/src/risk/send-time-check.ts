import type { BudgetedReply } from '@lib/ratelimit';
import { guardUpstreamSend } from '@lib/upstream';

import type { SendCheck } from './risk-gate.service.js';

/**
 * Runs an admitted order's `send` with each of its order-entering tries (not a read, not a cancel)
 * checked by `check` right before it leaves, after its budget wait: a refusal there sends nothing and
 * gives the budget back (UpstreamCalls). Issue 26: a halt latched while an order queued stops it.
 */
export function checkedAtSend(check: SendCheck, send: () => Promise<BudgetedReply>): Promise<BudgetedReply> {
  return guardUpstreamSend((attempt) => {
    if (attempt.budgetClass !== 'read' && attempt.budgetClass !== 'cancel') check();
  }, send);
}
