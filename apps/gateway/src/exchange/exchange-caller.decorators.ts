import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AccountCallerContext, CallerContext } from '@lib/exchange';
import type { FastifyRequest } from 'fastify';

import { PARTICIPANT_HEADER, headerOf, participantFor } from '../common/decorators/accounts.decorators.js';
import { clientOf } from '../common/decorators/auth.decorators.js';
import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';

function authenticated(ctx: ExecutionContext): { request: FastifyRequest; client: AuthenticatedClient } {
  const request = ctx.switchToHttp().getRequest<FastifyRequest>();
  return { request, client: clientOf(request) };
}

/**
 * Team and request id of a route that acts for no participant (reference and market data). An
 * x-participant-id is still checked when sent: a participant is refused wherever a request names it.
 */
export const MarketCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): CallerContext => {
  const { request, client } = authenticated(ctx);
  const named = headerOf(request, PARTICIPANT_HEADER);
  if (named !== undefined) participantFor(client, named);
  return { team: client.team, client: client.id, requestId: request.id, preferWaitMs: request.preferWaitMs };
});

/**
 * Team, request id and participant of an account-scoped route (spec 5.1.4): the x-participant-id
 * header when the client may use it, else the client's default; 403 before anything is sent otherwise.
 */
export const AccountCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): AccountCallerContext => {
  const { request, client } = authenticated(ctx);
  return {
    team: client.team,
    client: client.id,
    requestId: request.id,
    participant: participantFor(client, headerOf(request, PARTICIPANT_HEADER)),
    preferWaitMs: request.preferWaitMs,
  };
});
