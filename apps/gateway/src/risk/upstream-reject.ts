import { DomainError, ErrorCode, httpStatusOf } from '@lib/core';
import { z } from 'zod';

/**
 * What the reject breaker counts (issue 26): the exchange's or the retail API's refusal of an order.
 * An answered 4xx of an order-entering call is one (a 429 or a 401 is the gateway's budget or token,
 * not the order's fault, and is not); so is each refused child of a batch insert answered 200, and a
 * retail create answered 200 with the order rejected (unknown market, `participateDontInitiate`).
 */
export function rejectsInError(error: unknown): number {
  if (!(error instanceof DomainError) || error.extensions.upstream === undefined) return 0;
  if (error.code === ErrorCode.UPSTREAM_RATE_LIMITED || error.code === ErrorCode.UPSTREAM_UNAUTHORIZED) return 0;
  const status = httpStatusOf(error.code);
  return status >= 400 && status < 500 ? 1 : 0;
}

const BatchAnswer = z.looseObject({ responses: z.array(z.looseObject({ error: z.unknown().optional() })) });
const RetailAnswer = z.looseObject({
  executions: z.array(z.looseObject({ type: z.string().optional(), orderRejectReason: z.string().optional() })),
});

/** The operations whose 200 answer can carry a reject: batches (refused children), a retail order made at once. */
const BATCHES: ReadonlySet<string> = new Set(['exchange.batchInsert', 'exchange.batchReplace']);
const RETAIL_ORDERS: ReadonlySet<string> = new Set(['retail.create', 'retail.closePosition']);

/**
 * Rejects inside a 200 answer of `operation`: refused batch children, a retail order that came back
 * rejected. Any other answer carries none (an insert's reject comes on the order stream), and is not parsed.
 */
export function rejectsInAnswer(operation: string, text: string): number {
  const batch = BATCHES.has(operation);
  if (!batch && !RETAIL_ORDERS.has(operation)) return 0;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 0;
  }
  if (batch) {
    const answer = BatchAnswer.safeParse(body);
    return answer.success ? answer.data.responses.filter((item) => item.error !== undefined).length : 0;
  }
  const retail = RetailAnswer.safeParse(body);
  if (retail.success)
    return retail.data.executions.some((execution) => execution.type === 'EXECUTION_TYPE_REJECTED') ? 1 : 0;
  return 0;
}
