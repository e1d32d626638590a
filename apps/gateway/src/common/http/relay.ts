import type { BudgetedReply } from '@lib/ratelimit';
import { rateLimitHeaders } from '@lib/ratelimit';
import type { FastifyReply } from 'fastify';

/**
 * Success bodies pass through unchanged: the upstream's bytes, status and JSON content type, plus
 * the `RateLimit-Policy` / `RateLimit` headers of the budget the call spent.
 */
export function relay(res: FastifyReply, upstream: BudgetedReply): void {
  if (upstream.decision) res.headers(rateLimitHeaders(upstream.decision));
  res
    .status(upstream.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(upstream.text === '' ? '{}' : upstream.text);
}
