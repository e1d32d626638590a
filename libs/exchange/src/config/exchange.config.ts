import { z } from 'zod';

import type { ExchangeTier } from './exchange-tier.config.js';

/** Where the exchange protos are loaded from unless `exchange.protoDir` says otherwise: the top-level proto/ the sandbox loads too (the published contract, not gateway code). */
export const DEFAULT_PROTO_DIR = 'proto';

/** What the exchange lib reads of the `exchange` section (auth adds the token provider's fields). */
export const ExchangeFields = {
  requestTimeoutMs: z.number().int().positive().default(10_000),
  /** upstream-facts: the official protos are private, so they are loaded at run time from here (drop-in replaceable). */
  protoDir: z.string().min(1).default(DEFAULT_PROTO_DIR),
  /** Single-instance mode: where the drop-copy resume token is kept across restarts (with Redis: the topic's checkpoint in Redis). */
  dropCopyResumeFile: z.string().min(1).default('.dev/exchange-dropcopy.resume'),
  /**
   * Path segments of `POST /v1/<processor>/deposits` (spec 4.1 names `checkout` and hides the other
   * vendor as `<processor_a>`; operators put its real name here).
   */
  depositProcessors: z
    .array(z.string().regex(/^[a-z0-9][a-z0-9-]*$/))
    .min(1)
    .default(['checkout', 'processor-a']),
};

const Participant = z.string().regex(/^firms\/[^/]+\/users\/[^/]+$/, 'expected firms/<FIRM>/users/<USER>');

/** What the exchange adds to each client's entry (`clients[]`): the participants it trades as, and its feed reach. */
export const ExchangeClientFields = {
  participants: z.array(Participant).default([]),
  /**
   * Reads the firm-wide feeds (`exchange.dropcopy`, `exchange.trades`) whole, every participant's
   * records included. Without it a client sees the records of its own participants only, unless it
   * holds every participant the configuration names.
   */
  firmWide: z.boolean().default(false),
};

export type ExchangeSettings = { [K in keyof typeof ExchangeFields]: z.infer<(typeof ExchangeFields)[K]> };

/** What @lib/exchange reads of the gateway's config: its addresses, its section, the clients' participants, its tier. */
export interface ExchangeConfigView {
  environment: string;
  environments: Partial<Record<string, { exchangeUrl: string; grpcTarget: string; grpcTls: boolean }>>;
  exchange: ExchangeSettings;
  clients: readonly { participants: readonly string[] }[];
  redis?: { keyPrefix: string };
  limits: { exchangeTier: ExchangeTier };
}
