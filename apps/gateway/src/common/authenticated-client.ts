import type { Scope } from '@lib/core';

/** Who is calling, as the config describes them. Attached to the request by ClientAuthGuard. */
export interface AuthenticatedClient {
  id: string;
  team: string;
  scopes: ReadonlySet<Scope>;
  participants: readonly string[];
  retailAccounts: readonly string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    client?: AuthenticatedClient;
  }
}
