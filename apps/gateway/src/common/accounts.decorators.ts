import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ForbiddenError } from '@lib/core';
import type { FastifyRequest } from 'fastify';

import type { AuthenticatedClient } from './authenticated-client.js';

/** spec §5.1.4: the exchange account header; the gateway checks it against the client's allowed participants. */
export const PARTICIPANT_HEADER = 'x-participant-id';
/** Which of the gateway's retail keys to sign with, when a client may use several. */
export const RETAIL_ACCOUNT_HEADER = 'x-retail-account';

export function participantFor(client: AuthenticatedClient, requested: string | undefined): string {
  if (requested === undefined) {
    const fallback = client.participants[0];
    if (!fallback) throw new ForbiddenError(`Client ${client.id} may not act for any exchange participant.`);
    return fallback;
  }
  if (!client.participants.includes(requested)) throw new ForbiddenError(`Client ${client.id} may not act for participant ${requested}.`, { participant: requested });
  return requested;
}

export function retailAccountFor(client: AuthenticatedClient, requested: string | undefined): string {
  if (requested === undefined) {
    const fallback = client.retailAccounts[0];
    if (!fallback) throw new ForbiddenError(`Client ${client.id} may not use any retail account.`);
    return fallback;
  }
  if (!client.retailAccounts.includes(requested)) throw new ForbiddenError(`Client ${client.id} may not use retail account ${requested}.`, { retailAccount: requested });
  return requested;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function clientOf(request: FastifyRequest): AuthenticatedClient {
  if (!request.client) throw new Error('account decorators need an authenticated route');
  return request.client;
}

/** The exchange participant for this request: the header when allowed, else the client's default; 403 otherwise. */
export const Participant = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const request = ctx.switchToHttp().getRequest<FastifyRequest>();
  return participantFor(clientOf(request), header(request, PARTICIPANT_HEADER));
});

/** The retail account for this request: the header when allowed, else the client's default; 403 otherwise. */
export const RetailAccount = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const request = ctx.switchToHttp().getRequest<FastifyRequest>();
  return retailAccountFor(clientOf(request), header(request, RETAIL_ACCOUNT_HEADER));
});

export const RequestId = createParamDecorator((_: unknown, ctx: ExecutionContext): string => ctx.switchToHttp().getRequest<FastifyRequest>().id);
