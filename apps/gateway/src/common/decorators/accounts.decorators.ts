import { ApiHeader } from '@nestjs/swagger';
import { ForbiddenError } from '@lib/core';
import type { FastifyRequest } from 'fastify';

import type { AuthenticatedClient } from '../auth/authenticated-client.js';

/** spec §5.1.4: the exchange account header; the gateway checks it against the client's allowed participants. */
export const PARTICIPANT_HEADER = 'x-participant-id';
/** Documents the optional participant header of an account-scoped exchange route. */
export const ApiParticipantHeader = () =>
  ApiHeader({
    name: PARTICIPANT_HEADER,
    required: false,
    description:
      "firms/<FIRM>/users/<USER>, one the API key may act for (else 403); default: the key's first. Every body field marked x-identity is bound to the key the same way (README: who a request may name).",
  });
/** Which of the gateway's retail keys to sign with, when a client may use several. */
export const RETAIL_ACCOUNT_HEADER = 'x-retail-account';

/** The requested value when the client is allowed it, else the client's first allowed one; 403 otherwise. */
function allowedOrDefault(
  allowed: readonly string[],
  requested: string | undefined,
  refusal: { none: string; notAllowed: string; extension: string },
): string {
  if (requested === undefined) {
    const fallback = allowed[0];
    if (!fallback) throw new ForbiddenError(refusal.none);
    return fallback;
  }
  if (!allowed.includes(requested))
    throw new ForbiddenError(`${refusal.notAllowed} ${requested}.`, { [refusal.extension]: requested });
  return requested;
}

export const participantFor = (client: AuthenticatedClient, requested: string | undefined): string =>
  allowedOrDefault(client.participants, requested, {
    none: `Client ${client.id} may not act for any exchange participant.`,
    notAllowed: `Client ${client.id} may not act for participant`,
    extension: 'participant',
  });

export const retailAccountFor = (client: AuthenticatedClient, requested: string | undefined): string =>
  allowedOrDefault(client.retailAccounts, requested, {
    none: `Client ${client.id} may not use any retail account.`,
    notAllowed: `Client ${client.id} may not use retail account`,
    extension: 'retailAccount',
  });

/** A request header's value, or undefined when absent or empty. */
export function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
