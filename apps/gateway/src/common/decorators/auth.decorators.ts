import { SetMetadata, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Scope } from '@lib/core';
import type { FastifyRequest } from 'fastify';

import type { AuthenticatedClient } from '../auth/authenticated-client.js';

export const PUBLIC_ROUTE = 'gateway:public';
export const REQUIRED_SCOPES = 'gateway:scopes';

/** Health, metrics and docs only: no API key needed. */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** Every listed scope is required; the 403 names the first one missing. */
export const RequireScopes = (...scopes: Scope[]) => SetMetadata(REQUIRED_SCOPES, scopes);

/** The client the guard authenticated; a programming error on a public route. */
export function clientOf(request: FastifyRequest): AuthenticatedClient {
  if (!request.client) throw new Error('a client decorator was used on a public route');
  return request.client;
}

export const CurrentClient = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthenticatedClient => clientOf(ctx.switchToHttp().getRequest<FastifyRequest>()));
