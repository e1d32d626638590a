import { type ExecutionContext, SetMetadata, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

import type { RegisteredRetailKey } from '../shared/retail-keys.js';

export const RETAIL_PUBLIC = 'sandbox:retail-public';

declare module 'fastify' {
  interface FastifyRequest {
    retailKey?: RegisteredRetailKey;
  }
}

/** Sandbox-only routes of the retail surface; every upstream retail route is signed (spec §4.2). */
export const RetailPublic = () => SetMetadata(RETAIL_PUBLIC, true);

/** The key id whose signature the guard accepted. */
export const RetailKeyId = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const key = context.switchToHttp().getRequest<FastifyRequest>().retailKey;
  if (!key) throw new Error('RetailKeyId used on a public retail route');
  return key.keyId;
});
