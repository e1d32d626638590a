import { z } from 'zod';

import { MAX_ALLOWANCE_ENTRIES } from './ws-topic-allowance.js';

/** A ticket lives in Redis for its 30 s: 100 market-data topics fit (≈ 4,500 characters), a client minting many costs little. */
const MAX_ALLOWANCE_CHARS = 8_192;

/**
 * `POST /ws/tickets` body, optional: `topics` narrows the ticket to those topics and topic families, so
 * a browser opens only what its backend allowed. Without a body the ticket reads what the client may.
 * Each entry must be a declared topic or family: the controller checks it against the declared
 * families (allowanceEntryProblem), which exist only once the libs have declared them.
 */
export const WsTicketRequestSchema = z
  .object({
    topics: z
      .array(z.string().min(1).max(200))
      .min(1)
      .max(MAX_ALLOWANCE_ENTRIES)
      .refine(
        (entries) => entries.reduce((sum, entry) => sum + entry.length, 0) <= MAX_ALLOWANCE_CHARS,
        `at most ${MAX_ALLOWANCE_CHARS} characters in all`,
      ),
  })
  .strict()
  .optional();
export type WsTicketRequest = z.infer<typeof WsTicketRequestSchema>;
