import { z } from 'zod';

import { MAX_ALLOWANCE_ENTRIES, allowanceEntryProblem } from './ws-topic-allowance.js';

/**
 * `POST /ws/tickets` body, optional: `topics` narrows the ticket to those topics and topic families, so
 * a browser opens only what its backend allowed. Without a body the ticket reads what the client may.
 */
export const WsTicketRequestSchema = z
  .object({
    topics: z
      .array(
        z
          .string()
          .min(1)
          .max(200)
          .superRefine((entry, ctx) => {
            const problem = allowanceEntryProblem(entry);
            if (problem) ctx.addIssue({ code: 'custom', message: problem });
          }),
      )
      .min(1)
      .max(MAX_ALLOWANCE_ENTRIES),
  })
  .strict()
  .optional();
export type WsTicketRequest = z.infer<typeof WsTicketRequestSchema>;
