import { Injectable } from '@nestjs/common';
import {
  type CatalogParams,
  type CatalogQuery,
  type CatalogRouteName,
  CatalogClient,
  type Served,
  ageSeconds,
  cacheControl,
  matchesIfNoneMatch,
} from '@lib/catalog';
import { Clock } from '@lib/core';
import { parseBody, upstreamError } from '@lib/upstream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Answers a validated catalog request from the cache: the upstream bytes unchanged, with ETag,
 * Cache-Control, Age and X-Cache (hit, miss, stale, coalesced), or 304 when If-None-Match matches.
 */
@Injectable()
export class CatalogResponder {
  constructor(
    private readonly catalog: CatalogClient,
    private readonly clock: Clock,
  ) {}

  /** Sends the answer; a promise only when it has to wait (a miss, a stale entry, the shared store). */
  send<R extends CatalogRouteName>(
    request: FastifyRequest,
    reply: FastifyReply,
    route: R,
    params: CatalogParams<R>,
    query: CatalogQuery<R>,
  ): Promise<void> | undefined {
    const served = this.catalog.get(route, params, query, { requestId: request.id, team: request.client?.team });
    if (served instanceof Promise) return served.then((answer) => this.render(request, reply, answer));
    this.render(request, reply, served);
    return undefined;
  }

  /** The cache key send() looks these parameters up under. */
  keyOf<R extends CatalogRouteName>(route: R, params: CatalogParams<R>, query: CatalogQuery<R>): string {
    return this.catalog.keyOf(route, params, query);
  }

  private render(request: FastifyRequest, reply: FastifyReply, { entry, result }: Served): void {
    // A cached 404 is still the upstream's answer: the client gets the usual problem with its body.
    if (entry.status !== 200) throw upstreamError('catalog', { status: entry.status, body: parseBody(entry.body) });
    reply
      .header('etag', entry.etag)
      .header('cache-control', cacheControl(entry))
      .header('age', String(ageSeconds(entry, this.clock.now())))
      .header('x-cache', result.toUpperCase());
    const ifNoneMatch = request.headers['if-none-match'];
    if (matchesIfNoneMatch(typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined, entry.etag)) {
      reply.status(304).send();
      return;
    }
    reply.status(200).header('content-type', entry.contentType).send(entry.body);
  }
}
