import { Controller, applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiTags } from '@nestjs/swagger';
import type { RetailCaller } from '@lib/retail';
import type { FastifyRequest } from 'fastify';

import { RETAIL_ACCOUNT_HEADER, retailAccountFor } from '../common/accounts.decorators.js';

/** Every retail controller: under /retail/v1 (the upstream paths), an API key, and the account header documented. */
export const RetailController = () =>
  applyDecorators(
    ApiTags('retail'),
    ApiBearerAuth(),
    ApiHeader({ name: RETAIL_ACCOUNT_HEADER, required: false, description: "retail account name; default: the client's first" }),
    Controller('retail/v1'),
  );

/**
 * `@Caller() caller: RetailCaller`: the retail account as `@RetailAccount()` picks it (x-retail-account
 * when the client may use it, else its first; 403 otherwise), the client's team and the request id.
 */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): RetailCaller => {
  const request = ctx.switchToHttp().getRequest<FastifyRequest>();
  const client = request.client;
  if (!client) throw new Error('Caller used on a public route');
  const requested = request.headers[RETAIL_ACCOUNT_HEADER];
  const account = retailAccountFor(client, typeof requested === 'string' && requested !== '' ? requested : undefined);
  return { account, team: client.team, requestId: request.id, preferWaitMs: request.preferWaitMs };
});
