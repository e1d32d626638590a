import { status as GrpcStatus } from '@grpc/grpc-js';

import { type AccessTokenParts, type AccessTokenRejection, verifyAccessToken } from '../auth/access-token.js';
import type { UpstreamScope } from '../config/sandbox-config.schema.js';
import type { RegisteredExchangeClient } from '../shared/exchange-clients.js';
import type { SandboxCounters } from '../shared/sandbox-counters.js';

/** What checking an exchange call needs: the access-token check, and the counters its outcomes go to. */
export interface ExchangeAuthorizationParts extends AccessTokenParts {
  readonly counters: Pick<SandboxCounters, 'count'>;
}

/** Nest token of the exchange surface's ExchangeAuthorizationParts. */
export const EXCHANGE_AUTHORIZATION = Symbol('EXCHANGE_AUTHORIZATION');

export interface ExchangeRequirement {
  scope: UpstreamScope;
  /** Trading, positions, reports: the call acts for one user of the firm (spec §5.1.4). */
  accountScoped: boolean;
}

export interface ExchangeCaller {
  client: RegisteredExchangeClient;
  scopes: ReadonlySet<string>;
  /** `firms/<FIRM>/users/<USER>`, checked against the token's firm; set on account-scoped calls. */
  participant?: string;
  /** When the access token expires (REST calls; a stream is checked at its start only and outlives it). */
  expiresAtMs: number;
}

/** Raw values of the `authorization` and `x-participant-id` headers (REST) or metadata keys (gRPC). */
export interface ExchangeCredentials {
  authorization?: string;
  participantId?: string;
}

export type ExchangeRejection =
  'no_token' | AccessTokenRejection | 'missing_scope' | 'no_participant' | 'foreign_participant';

export type ExchangeAuthorization =
  | { ok: true; caller: ExchangeCaller }
  | {
      ok: false;
      reason: ExchangeRejection;
      grpcCode: GrpcStatus.UNAUTHENTICATED | GrpcStatus.PERMISSION_DENIED;
      message: string;
    };

const BEARER = /^Bearer +(\S+)$/i;
const PARTICIPANT = /^firms\/([^/]+)\/users\/([^/]+)$/;

/**
 * Spec §5.1 and §7 for one exchange call, in the order upstream answers them: a valid unexpired
 * token (else UNAUTHENTICATED), the route's scope, then the participant (else PERMISSION_DENIED).
 * Plain function so that REST (a Nest guard) and gRPC (metadata) share it; it counts each outcome.
 */
export function authorizeExchangeCall(
  parts: ExchangeAuthorizationParts,
  credentials: ExchangeCredentials,
  requirement: ExchangeRequirement,
): ExchangeAuthorization {
  const result = authorize(parts, credentials, requirement);
  parts.counters.count(result.ok ? 'exchange.accepted' : `exchange.rejected.${result.reason}`);
  return result;
}

function authorize(
  parts: AccessTokenParts,
  credentials: ExchangeCredentials,
  requirement: ExchangeRequirement,
): ExchangeAuthorization {
  const token = BEARER.exec(credentials.authorization ?? '')?.[1];
  if (!token) return unauthenticated('no_token', 'a bearer access token is required');
  const check = verifyAccessToken(parts, token);
  if (!check.ok) return unauthenticated(check.reason, check.message);
  const { client, scopes, expiresAtMs } = check.grant;
  if (!scopes.has(requirement.scope)) return denied('missing_scope', `missing required scope ${requirement.scope}`);
  if (!requirement.accountScoped) return { ok: true, caller: { client, scopes, expiresAtMs } };

  const participant = credentials.participantId;
  if (!participant) return denied('no_participant', 'x-participant-id is required for this call');
  const [, firm, user] = PARTICIPANT.exec(participant) ?? [];
  if (firm !== client.firm || !client.users.includes(user)) {
    return denied('foreign_participant', `participant ${participant} is not a user of firm ${client.firm}`);
  }
  return { ok: true, caller: { client, scopes, participant, expiresAtMs } };
}

function unauthenticated(reason: ExchangeRejection, detail: string): ExchangeAuthorization {
  return { ok: false, reason, grpcCode: GrpcStatus.UNAUTHENTICATED, message: `unauthenticated: ${detail}` };
}

// Message wording of upstream-facts: "permission denied: missing required scope read:positions".
function denied(reason: ExchangeRejection, detail: string): ExchangeAuthorization {
  return { ok: false, reason, grpcCode: GrpcStatus.PERMISSION_DENIED, message: `permission denied: ${detail}` };
}
