import { z } from 'zod';

/** upstream-facts "Published per-firm rate limits": order entry limits depend on the firm's tier. */
export const EXCHANGE_TIERS = ['T1', 'T2', 'T3', 'T4'] as const;
export type ExchangeTier = (typeof EXCHANGE_TIERS)[number];

/** What the exchange adds to the `limits` section: the firm's tier, which sets its order entry buckets. */
export const ExchangeLimitsFields = { exchangeTier: z.enum(EXCHANGE_TIERS).default('T1') };
