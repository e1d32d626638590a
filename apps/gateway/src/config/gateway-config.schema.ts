import { ClientSchema, CoreConfigSchema, TeamSchema } from '@lib/core';
import { CATALOG_BUCKET_NAMES, CatalogSchema, catalogConfigCheck } from '@lib/catalog';
import { EXCHANGE_BUCKET_NAMES, ExchangeLimitsFields } from '@lib/exchange';
import { JournalSchema } from '@lib/journal';
import { declaredBucketsCheck, LimitsSchema, LimitsTeamFields } from '@lib/ratelimit';
import { RETAIL_BUCKET_NAMES } from '@lib/retail';
import { z } from 'zod';

import { RiskClientFields, RiskSchema, riskConfigCheck } from '../risk/risk.config.js';
import { StreamsSchema, streamsConfigCheck } from '../stream/streams.config.js';

/** Every upstream bucket the gateway's surfaces declare (each lib owns its list, next to its calls). */
export const GATEWAY_BUCKET_NAMES: readonly string[] = [
  ...RETAIL_BUCKET_NAMES,
  ...EXCHANGE_BUCKET_NAMES,
  ...CATALOG_BUCKET_NAMES,
];

/** A team's entry: @lib/core's fields and its shares of the upstream buckets (@lib/ratelimit). */
const GatewayTeamSchema = TeamSchema.safeExtend(LimitsTeamFields);

/** A client's entry: @lib/core's fields and what the app's risk step reads of it. */
const GatewayClientSchema = ClientSchema.safeExtend(RiskClientFields);

/**
 * The gateway's one config schema, assembled from the slices: @lib/core's sections and each lib's own
 * (`catalog` from @lib/catalog, `limits` from @lib/ratelimit with the exchange tier from @lib/exchange, `journal` from @lib/journal, `streams` and `risk` from the app's stream and risk folders), with
 * what only the slices know checked against their declarations (so a typo fails at start, every key
 * listed): `limits.buckets` overrides and team shares name declared buckets, `catalog.ttlSeconds` names
 * catalog routes, stream shares and risk limits name configured teams and clients.
 */
export const GatewayAppConfigSchema = CoreConfigSchema.safeExtend({
  catalog: CatalogSchema.prefault({}),
  limits: LimitsSchema.safeExtend(ExchangeLimitsFields).prefault({}),
  streams: StreamsSchema.prefault({}),
  risk: RiskSchema.prefault({}),
  journal: JournalSchema.prefault({}),
  teams: z.array(GatewayTeamSchema).default([]),
  clients: z.array(GatewayClientSchema).default([]),
})
  .superRefine(streamsConfigCheck)
  .superRefine(riskConfigCheck)
  .superRefine(declaredBucketsCheck(GATEWAY_BUCKET_NAMES))
  .superRefine(catalogConfigCheck);

/** The whole validated configuration: only the app holds this type; a lib types its injection with its own view. */
export type GatewayConfig = z.infer<typeof GatewayAppConfigSchema>;
export type GatewayConfigInput = z.input<typeof GatewayAppConfigSchema>;
export type ClientConfig = GatewayConfig['clients'][number];
