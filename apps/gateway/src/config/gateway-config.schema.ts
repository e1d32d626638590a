import {
  AuthClientFields,
  EnvironmentSchema,
  ExchangeTokenFields,
  RetailSigningFields,
  environmentsConfigCheck,
} from '@lib/auth';
import { CATALOG_BUCKET_NAMES, CatalogEnvironmentFields, CatalogSchema, catalogConfigCheck } from '@lib/catalog';
import { ClientSchema, CoreConfigSchema, ENVIRONMENT_NAMES, TeamSchema } from '@lib/core';
import { EXCHANGE_BUCKET_NAMES, ExchangeClientFields, ExchangeFields, ExchangeLimitsFields } from '@lib/exchange';
import { JournalSchema } from '@lib/journal';
import { declaredBucketsCheck, LimitsSchema, LimitsTeamFields } from '@lib/ratelimit';
import { RETAIL_BUCKET_NAMES, RetailFields } from '@lib/retail';
import { z } from 'zod';

import { RiskClientFields, RiskSchema, riskConfigCheck } from '../risk/risk.config.js';
import { StreamsSchema, streamsConfigCheck } from '../stream/streams.config.js';

/** Every upstream bucket the gateway's surfaces declare (each lib owns its list, next to its calls). */
export const GATEWAY_BUCKET_NAMES: readonly string[] = [
  ...RETAIL_BUCKET_NAMES,
  ...EXCHANGE_BUCKET_NAMES,
  ...CATALOG_BUCKET_NAMES,
];

/** An environment's addresses: those @lib/auth binds credentials to, and the catalog's. */
const GatewayEnvironmentSchema = EnvironmentSchema.safeExtend(CatalogEnvironmentFields);

/** A team's entry: @lib/core's fields and its shares of the upstream buckets (@lib/ratelimit). */
const GatewayTeamSchema = TeamSchema.safeExtend(LimitsTeamFields);

/** A client's entry: @lib/core's fields and what auth, the exchange and the app's risk step read of it. */
const GatewayClientSchema = ClientSchema.safeExtend({
  ...ExchangeClientFields,
  ...AuthClientFields,
  ...RiskClientFields,
});

/**
 * The gateway's one config schema, assembled from the slices: @lib/core's sections (server, logging,
 * redis, http, bulkheads, inbound, the team and client basics) and each lib's own, declared next to the
 * code that reads it: `environments` (@lib/auth, plus the catalog's address), `exchange` (the token
 * provider's fields from @lib/auth, the rest from @lib/exchange), `retail` (likewise with @lib/retail),
 * `catalog`, `limits` (@lib/ratelimit, with the tier from @lib/exchange), `journal`, and the app's
 * `streams` and `risk`. Each slice's cross-section check runs too (every problem listed at start): the
 * running environment has addresses, clients name known retail accounts, `limits.buckets` overrides and
 * team shares name declared buckets, `catalog.ttlSeconds` names catalog routes, stream shares and risk
 * limits name configured teams and clients.
 */
export const GatewayAppConfigSchema = CoreConfigSchema.safeExtend({
  environments: z.partialRecord(z.enum(ENVIRONMENT_NAMES), GatewayEnvironmentSchema),
  exchange: z
    .object({ ...ExchangeTokenFields, ...ExchangeFields })
    .strict()
    .prefault({}),
  retail: z
    .object({ ...RetailSigningFields, ...RetailFields })
    .strict()
    .prefault({}),
  catalog: CatalogSchema.prefault({}),
  limits: LimitsSchema.safeExtend(ExchangeLimitsFields).prefault({}),
  streams: StreamsSchema.prefault({}),
  risk: RiskSchema.prefault({}),
  journal: JournalSchema.prefault({}),
  teams: z.array(GatewayTeamSchema).default([]),
  clients: z.array(GatewayClientSchema).default([]),
})
  .superRefine(environmentsConfigCheck)
  .superRefine(streamsConfigCheck)
  .superRefine(riskConfigCheck)
  .superRefine(declaredBucketsCheck(GATEWAY_BUCKET_NAMES))
  .superRefine(catalogConfigCheck);

/** The whole validated configuration: only the app holds this type; a lib types its injection with its own view. */
export type GatewayConfig = z.infer<typeof GatewayAppConfigSchema>;
export type GatewayConfigInput = z.input<typeof GatewayAppConfigSchema>;
export type ClientConfig = GatewayConfig['clients'][number];
