import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Anyone may call the route without a key (set by @Public(), or by markPublicRoutes for routes Nest does not register). */
    public?: boolean;
    /** On a public wildcard route: the only values of its `*` parameter served; anything else is 404 before the handler runs. */
    publicFiles?: ReadonlySet<string>;
    /** A cancel route (set by @CancelRoute()): the client's inbound rate counts the request but never refuses it. */
    cancels?: boolean;
  }
}

/** The Fastify route config of a public route: what the request gate reads, the one source of "no key needed". */
export const PUBLIC_ROUTE_CONFIG = { public: true } as const;

/**
 * Marks public the routes something other than a Nest controller registers on Fastify (SwaggerModule's
 * pages and documents): every route `register` adds while it runs, and, when given, the wildcard route
 * `files.route` a plugin adds later (the static assets), serving only `files.names`.
 */
export function markPublicRoutes(
  fastify: FastifyInstance,
  register: () => void,
  files?: { route: string; names: ReadonlySet<string> },
): void {
  let registering = true;
  fastify.addHook('onRoute', (route) => {
    if (registering) route.config = { ...route.config, ...PUBLIC_ROUTE_CONFIG };
    else if (files && route.url === files.route)
      route.config = { ...route.config, ...PUBLIC_ROUTE_CONFIG, publicFiles: files.names };
  });
  try {
    register();
  } finally {
    registering = false;
  }
}
