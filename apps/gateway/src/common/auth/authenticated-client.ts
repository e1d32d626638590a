import type { Scope } from '@lib/core';

import type { FeedScope } from './feed-scope.js';

/** Who is calling, as the config describes them. Attached to the request by ClientAuthGuard. */
export interface AuthenticatedClient {
  id: string;
  team: string;
  scopes: ReadonlySet<Scope>;
  participants: readonly string[];
  retailAccounts: readonly string[];
  /** The config's explicit grant to read the firm-wide feeds whole. */
  firmWide: boolean;
  /** What it reads of the firm-wide feeds (the grant, or holding every participant, gives `firm`). */
  feedScope: FeedScope;
}

declare module 'fastify' {
  interface FastifyRequest {
    client?: AuthenticatedClient;
  }
}
