import { z } from 'zod';

/** What the retail lib reads of the `retail` section (auth adds the signers' fields). */
export const RetailFields = {
  requestTimeoutMs: z.number().int().positive().default(10_000),
};

/** What @lib/retail reads of the gateway's config: the retail address and accounts of the running environment, its section. */
export interface RetailConfigView {
  environment: string;
  environments: Partial<Record<string, { retailUrl: string; retailAccounts: readonly { name: string }[] }>>;
  retail: { requestTimeoutMs: number };
}
