import { scrubText } from '@lib/core';
import { z } from 'zod';

import { type RiskLimit, RiskLimitSchema } from './risk.config.js';

/**
 * The limits in force, as latched for the whole fleet: an admin set (`limits`), or config's (`limits`
 * null: no admin set). `version` only grows (config's own is 0), so a stale read is always told apart.
 */
export interface LimitsSetRecord {
  version: number;
  limits: RiskLimit[] | null;
  by: string;
  at: string;
  reason: string;
}

/** One recorded change of the limits in force: who, when, why, old → new (`to` null: back to config's). */
export interface LimitsChange {
  version: number;
  from: RiskLimit[];
  to: RiskLimit[] | null;
  by: string;
  at: string;
  reason: string;
}

/**
 * Why an admin changed a limit or a state: free text, recorded with who and when (journal, latched
 * state, log). Anything in it shaped like key material is replaced by [redacted] as it is read, so a
 * key pasted into an emergency halt's reason is never stored or logged, and the halt still goes through.
 */
export const AdminReasonSchema = z.string().trim().min(3).max(500).overwrite(scrubText);
/** The version the caller last read (`GET /admin/risk` `limitsSet.version`): a change over a newer one is refused 412. */
const Version = z.number().int().nonnegative();

/** `PUT /admin/risk/limits`: the whole set, validated by config's own limit schema. */
export const PutLimitsSchema = z
  .object({
    limits: z.array(RiskLimitSchema).max(1_000),
    /** Every change names why; it is recorded with who and when. */
    reason: AdminReasonSchema,
    version: Version.optional(),
  })
  .strict()
  .meta({
    examples: [
      { limits: [{ scope: 'team', id: 'trading', maxOrderQty: 100 }], reason: 'volatile open, OPS-1240', version: 3 },
    ],
  });
export type PutLimits = z.infer<typeof PutLimitsSchema>;

/** `DELETE /admin/risk/limits`: back to config's limits; the reason (and version) in the body. */
export const DeleteLimitsSchema = z
  .object({ reason: AdminReasonSchema, version: Version.optional() })
  .strict()
  .meta({ examples: [{ reason: 'open over, back to config, OPS-1240', version: 4 }] });
export type DeleteLimits = z.infer<typeof DeleteLimitsSchema>;

/** Whether two sets count differently (a count limit added, removed or altered): the open-order counts must be rebuilt. */
export function countsDiffer(before: readonly RiskLimit[], after: readonly RiskLimit[]): boolean {
  const counted = (limits: readonly RiskLimit[]) =>
    limits
      .filter((l) => l.maxOpenOrders !== undefined || l.maxOpenNotional !== undefined || l.maxNetPosition !== undefined)
      .map((l) =>
        JSON.stringify([l.scope, l.id, l.market, l.event, l.maxOpenOrders, l.maxOpenNotional, l.maxNetPosition]),
      )
      .sort()
      .join('\n');
  return counted(before) !== counted(after);
}
