import { type EnvironmentName, hostPort, httpUrl, secretFile } from '@lib/core';
import { z } from 'zod';

/** A retail account's name: no dots, so it can stand inside dotted names (WebSocket topics). */
export const RETAIL_ACCOUNT_NAME = '[a-z0-9][a-z0-9-]*';

const RetailAccountSchema = z
  .object({
    name: z.string().regex(new RegExp(`^${RETAIL_ACCOUNT_NAME}$`), 'lower-case letters, digits and dashes'),
    keyId: z.uuid(),
    secretKeyFile: secretFile,
  })
  .strict();

/**
 * One environment's addresses and credentials (`environments.<name>`): where each credential may be
 * sent (EnvironmentBinding) and the keys that sign. Other libs add the addresses only they call.
 */
export const EnvironmentSchema = z
  .object({
    authUrl: httpUrl,
    exchangeUrl: httpUrl,
    grpcTarget: hostPort,
    grpcTls: z.boolean().default(true),
    retailUrl: httpUrl,
    exchangeClient: z
      .object({ clientId: z.string().min(1), privateKeyFile: secretFile })
      .strict()
      .optional(),
    retailAccounts: z.array(RetailAccountSchema).default([]),
  })
  .strict();

/** What the exchange token provider reads of the `exchange` section (the exchange lib adds its own fields). */
export const ExchangeTokenFields = {
  /** spec §5.1: the assertion may live at most 5 minutes. */
  assertionLifetimeSeconds: z.number().int().min(1).max(300).default(60),
  /** spec §5.1.3: refreshing about 30 s early is the documented pattern. */
  refreshEarlySeconds: z.number().int().min(0).default(30),
  refreshBackoffInitialMs: z.number().int().positive().default(250),
  refreshBackoffMaxMs: z.number().int().positive().default(15_000),
  /** The token request's own deadline: a short order deadline must not starve token fetches (every exchange call needs one). */
  tokenTimeoutMs: z.number().int().positive().default(10_000),
};

/** What the signers read of the `retail` section (the retail lib adds its own fields). */
export const RetailSigningFields = {
  clockSkewWarnMs: z.number().int().positive().default(5_000),
};

/** What auth adds to each client's entry (`clients[]`): the retail accounts it may act for. */
export const AuthClientFields = { retailAccounts: z.array(z.string()).default([]) };

export type EnvironmentConfig = z.infer<typeof EnvironmentSchema>;
export type RetailAccountConfig = z.infer<typeof RetailAccountSchema>;
export type ExchangeTokenSettings = {
  [K in keyof typeof ExchangeTokenFields]: z.infer<(typeof ExchangeTokenFields)[K]>;
};

/** What @lib/auth reads of the gateway's config. */
export interface AuthConfigView {
  environment: EnvironmentName;
  environments: Partial<Record<EnvironmentName, EnvironmentConfig>>;
  exchange: ExchangeTokenSettings;
  retail: { clockSkewWarnMs: number };
}

/**
 * The config check auth adds to the app's schema: the running environment has addresses, and a client
 * names only that environment's retail accounts.
 */
export function environmentsConfigCheck(
  config: Pick<AuthConfigView, 'environment' | 'environments'> & {
    clients: readonly { retailAccounts: readonly string[] }[];
  },
  ctx: z.RefinementCtx,
): void {
  const active = config.environments[config.environment];
  if (!active) {
    ctx.addIssue({
      code: 'custom',
      path: ['environments', config.environment],
      message: `the running environment "${config.environment}" has no addresses`,
    });
  }
  const accounts = new Set((active?.retailAccounts ?? []).map((a) => a.name));
  config.clients.forEach((client, i) => {
    client.retailAccounts.forEach((name, j) => {
      if (!accounts.has(name))
        ctx.addIssue({
          code: 'custom',
          path: ['clients', i, 'retailAccounts', j],
          message: `unknown retail account "${name}"`,
        });
    });
  });
}
