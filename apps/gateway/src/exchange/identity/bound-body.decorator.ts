import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { assertBatchSize } from '@lib/exchange';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';

import { PARTICIPANT_HEADER, headerOf, participantFor } from '../../common/decorators/accounts.decorators.js';
import { clientOf } from '../../common/decorators/auth.decorators.js';
import { openApiSchemaOf, parseOrThrow } from '../../common/pipes/zod-params.js';
import { IdentityBinder, type BoundBody } from './identity-binder.js';
import { identityFieldsOf } from './identity-fields.js';

interface BindSpec {
  schema: z.ZodType;
  binder: IdentityBinder;
  batch: boolean;
}

const bindBody = createParamDecorator((spec: BindSpec, ctx: ExecutionContext): BoundBody<unknown> => {
  const request = ctx.switchToHttp().getRequest<FastifyRequest>();
  const client = clientOf(request);
  const chosen = participantFor(client, headerOf(request, PARTICIPANT_HEADER));
  // Size before shape: a batch of more than 20 orders is a 413 whatever its items hold (spec 4.1, 8).
  if (spec.batch) assertBatchSize(request.body);
  const body = parseOrThrow(spec.schema, request.body, 'body');
  return spec.binder.bind(body, { clientId: client.id, chosen, allowed: client.participants });
});

/**
 * `@ExchangeBody(Schema) bound: BoundBody<T>` on every exchange route with a body: validates it, binds
 * each identity field the schema marks to the calling client (IdentityBinder), and documents it, all
 * from one schema and before any budget is spent. `batch` puts the 20-order size check first.
 */
export function ExchangeBody(schema: z.ZodType, options: { batch?: boolean } = {}): ParameterDecorator {
  const json = openApiSchemaOf(schema);
  const spec: BindSpec = { schema, binder: new IdentityBinder(identityFieldsOf(json)), batch: options.batch ?? false };
  return (target, key, index) => {
    bindBody(spec)(target, key, index);
    if (key !== undefined)
      ApiBody({ schema: json })(target, key, Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor);
  };
}
