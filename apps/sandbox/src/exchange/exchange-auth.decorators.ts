import { type ExecutionContext, SetMetadata, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

import type { UpstreamScope } from '../config/sandbox-config.schema.js';
import type { ExchangeCaller } from './exchange-authorization.js';

export const EXCHANGE_SCOPE = 'sandbox:exchange-scope';
export const ACCOUNT_SCOPED = 'sandbox:exchange-account-scoped';
export const EXCHANGE_PUBLIC = 'sandbox:exchange-public';

declare module 'fastify' {
  interface FastifyRequest {
    exchangeCaller?: ExchangeCaller;
  }
}

/** The scope of spec §5.1's table the route requires; a route without it (and not public) is refused. */
export const ExchangeScope = (scope: UpstreamScope) => SetMetadata(EXCHANGE_SCOPE, scope);

/** The route acts for one participant: `x-participant-id` must name a user of the token's firm. */
export const AccountScoped = () => SetMetadata(ACCOUNT_SCOPED, true);

/** No token needed: only GET /v1/health upstream (spec §5.1). */
export const ExchangePublic = () => SetMetadata(EXCHANGE_PUBLIC, true);

export const Caller = createParamDecorator((_: unknown, context: ExecutionContext): ExchangeCaller => {
  const caller = context.switchToHttp().getRequest<FastifyRequest>().exchangeCaller;
  if (!caller) throw new Error('Caller used on a public exchange route');
  return caller;
});

/** The checked `x-participant-id` of an `@AccountScoped()` route. */
export const Participant = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const participant = context.switchToHttp().getRequest<FastifyRequest>().exchangeCaller?.participant;
  if (!participant) throw new Error('Participant used on a route that is not @AccountScoped()');
  return participant;
});
