import { SetMetadata, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import type { Scope } from '@lib/core';
import type { FastifyRequest } from 'fastify';

import type { AuthenticatedClient } from '../auth/authenticated-client.js';
import { PUBLIC_ROUTE_CONFIG } from '../auth/public-route.js';

export const PUBLIC_ROUTE = 'gateway:public';
export const REQUIRED_SCOPES = 'gateway:scopes';

/**
 * No API key needed (health, metrics, documents, the console page), on a handler or on a whole
 * controller. The one declaration of a public route: it becomes the Fastify route config of each
 * handler (what the request gate reads before anything else runs) and the metadata the guard reads.
 */
export const Public = (): ClassDecorator & MethodDecorator =>
  ((target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (descriptor) {
      markHandler(target, key as string | symbol, descriptor);
      return SetMetadata(PUBLIC_ROUTE, true)(target, key as string | symbol, descriptor);
    }
    // Nest hands Fastify the config of the handler only, so a controller's mark goes on each of its methods.
    const prototype = (target as { prototype: object }).prototype;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const method = Object.getOwnPropertyDescriptor(prototype, name);
      if (name !== 'constructor' && typeof method?.value === 'function') markHandler(prototype, name, method);
    }
    SetMetadata(PUBLIC_ROUTE, true)(target as () => void);
  }) as ClassDecorator & MethodDecorator;

/**
 * A route that cancels orders: no gateway rule holds a cancel back, so the client's inbound rate
 * (`inbound.perClientPerSecond`, an abuse bound) counts it but never refuses it. The key is still
 * checked first, and the cancel still meets the exchange's published cancel limit.
 */
export const CancelRoute = (): MethodDecorator => (target, key, descriptor) =>
  markHandler(target, key, descriptor, { cancels: true });

/** Adds a mark (default: public) to the handler's Fastify route config, keeping any config it already has. */
function markHandler(
  prototype: object,
  name: string | symbol,
  descriptor: PropertyDescriptor,
  mark: object = PUBLIC_ROUTE_CONFIG,
): void {
  const config: unknown = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, descriptor.value as object);
  RouteConfig({ ...(config as object | undefined), ...mark })(prototype, name, descriptor);
}

/** Every listed scope is required; the 403 names the first one missing. */
export const RequireScopes = (...scopes: Scope[]) => SetMetadata(REQUIRED_SCOPES, scopes);

/** The client the guard authenticated; a programming error on a public route. */
export function clientOf(request: FastifyRequest): AuthenticatedClient {
  if (!request.client) throw new Error('a client decorator was used on a public route');
  return request.client;
}

export const CurrentClient = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthenticatedClient =>
  clientOf(ctx.switchToHttp().getRequest<FastifyRequest>()),
);
