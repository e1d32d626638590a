import { Controller, applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiTags } from '@nestjs/swagger';
import type { RetailCaller } from '@lib/retail';
import type { FastifyRequest } from 'fastify';

import { RETAIL_ACCOUNT_HEADER, headerOf, retailAccountFor } from '../common/decorators/accounts.decorators.js';
import { clientOf } from '../common/decorators/auth.decorators.js';

/** Every retail controller: under /retail/v1 (the upstream paths), an API key, and the account header documented. */
export const RetailController = () =>
  applyDecorators(
    ApiTags('retail'),
    ApiBearerAuth(),
    ApiHeader({
      name: RETAIL_ACCOUNT_HEADER,
      required: false,
      description: "retail account name; default: the client's first",
    }),
    Controller('retail/v1'),
  );

/**
 * `@Caller() caller: RetailCaller`: the retail account (x-retail-account
 * when the client may use it, else its first; 403 otherwise), the client's team and the request id.
 */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): RetailCaller => {
  const request = ctx.switchToHttp().getRequest<FastifyRequest>();
  const client = clientOf(request);
  const account = retailAccountFor(client, headerOf(request, RETAIL_ACCOUNT_HEADER));
  return { account, team: client.team, client: client.id, requestId: request.id, preferWaitMs: request.preferWaitMs };
});
