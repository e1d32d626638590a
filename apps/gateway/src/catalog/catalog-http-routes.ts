import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  CATALOG_ROUTE_NAMES,
  CATALOG_ROUTES,
  type CatalogParams,
  type CatalogQuery,
  type CatalogRouteName,
} from '@lib/catalog';
import type { Scope } from '@lib/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { ClientAuthGuard } from '../common/guards/client-auth.guard.js';
import { sendProblem } from '../common/filters/problem.filter.js';
import { openApiParametersOf, parseOrThrow } from '../common/pipes/zod-params.js';
import { CatalogFastPath } from './catalog-fast-path.js';
import { CatalogResponder } from './catalog-responder.js';

/**
 * The scope each catalog route needs. Events, markets, series, sports and search are reference data:
 * read:instruments ("instrument listing and metadata", spec §5.1). Book and best bid/offer are market
 * data: read:marketdata ("best bid/offer and streaming market data").
 */
export const CATALOG_SCOPES: Readonly<Record<CatalogRouteName, Scope>> = {
  events: 'read:instruments',
  event: 'read:instruments',
  eventBySlug: 'read:instruments',
  markets: 'read:instruments',
  market: 'read:instruments',
  marketBySlug: 'read:instruments',
  book: 'read:marketdata',
  bbo: 'read:marketdata',
  settlement: 'read:instruments',
  series: 'read:instruments',
  seriesById: 'read:instruments',
  sports: 'read:instruments',
  teams: 'read:instruments',
  search: 'read:instruments',
  sport: 'read:instruments',
  leagueEvents: 'read:instruments',
  seriesEvents: 'read:instruments',
};

/** `/catalog` + the upstream path, in the routers' `:name` form. */
const gatewayPathOf = (name: CatalogRouteName) => `/catalog${CATALOG_ROUTES[name].path.replace(/\{(\w+)\}/g, ':$1')}`;

/**
 * `/catalog/v1|v2/*`: one GET route per entry of the catalog route table, registered on Fastify
 * directly. A cache hit is the gateway's most frequent answer and little more than a lookup, so it
 * skips Nest's per-request machinery (execution context, guard and pipe chains, metadata reflection),
 * which cost more than the hit itself. Admission, validation and errors are the same functions the
 * Nest routes use: ClientAuthGuard.admit, parseOrThrow, sendProblem.
 */
@Injectable()
export class CatalogHttpRoutes implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly auth: ClientAuthGuard,
    private readonly responder: CatalogResponder,
    private readonly fastPath: CatalogFastPath,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    for (const name of CATALOG_ROUTE_NAMES) {
      const required: readonly Scope[] = [CATALOG_SCOPES[name]];
      const pattern = gatewayPathOf(name);
      fastify.get(pattern, (request, reply) => this.serve(name, pattern, required, request, reply));
    }
  }

  /**
   * Synchronous for a hit of this instance's memory; a promise only when the answer has to wait. It
   * sends the reply itself and never returns it: Fastify would send a returned reply again, and an
   * already-sent reply costs an error object (with its stack) per request.
   */
  private serve<R extends CatalogRouteName>(
    name: R,
    pattern: string,
    required: readonly Scope[],
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> | undefined {
    const failed = (error: unknown) => sendProblem(request, reply, error);
    try {
      this.auth.admit(request, required);
      const route = CATALOG_ROUTES[name];
      const params = parseOrThrow(route.params, request.params, 'params') as CatalogParams<R>;
      const query = parseOrThrow(route.query, request.query, 'query') as CatalogQuery<R>;
      // Admitted and valid: this target's next hits may be answered before Fastify (CatalogFastPath).
      if (request.method === 'GET')
        this.fastPath.remember(request.url, name, pattern, required[0], () =>
          this.responder.keyOf(name, params, query),
        );
      return this.responder.send(request, reply, name, params, query)?.catch(failed);
    } catch (error) {
      failed(error);
      return undefined;
    }
  }
}

/** The OpenAPI path items of the catalog routes, generated from the schemas that validate them. */
export function catalogOpenApiPaths(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const name of CATALOG_ROUTE_NAMES) {
    const route = CATALOG_ROUTES[name];
    const parameters = [...openApiParametersOf(route.params, 'path'), ...openApiParametersOf(route.query, 'query')];
    paths[`/catalog${route.path}`] = {
      get: {
        operationId: `catalog_${name}`,
        summary: `GET ${route.path} of the catalog gateway, through the shared cache (requires ${CATALOG_SCOPES[name]})`,
        tags: ['catalog'],
        security: [{ bearer: [] }],
        parameters,
        responses: {
          200: { description: 'The upstream body unchanged, with ETag, Cache-Control, Age and X-Cache.' },
          304: { description: 'If-None-Match matched the current ETag.' },
          default: { description: 'application/problem+json' },
        },
      },
    };
  }
  return paths;
}
