import type { IncomingMessage } from 'node:http';

import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiKeyVerifier } from '@lib/auth';
import {
  Clock,
  type ClientConfig,
  ForbiddenError,
  GATEWAY_CONFIG,
  type GatewayConfig,
  RateLimitedError,
  type Scope,
  UnauthenticatedError,
} from '@lib/core';
import type { FastifyRequest } from 'fastify';

import { PUBLIC_ROUTE, REQUIRED_SCOPES } from './auth.decorators.js';
import type { AuthenticatedClient } from './authenticated-client.js';
import { KeyedBuckets } from './token-bucket.js';

/**
 * Global guard: API key → client (401), per-client abuse limit (429), declared scopes (403).
 * Failed authentications are counted per IP, so guessing keys is slow.
 */
@Injectable()
export class ClientAuthGuard implements CanActivate {
  private readonly verifier: ApiKeyVerifier<ClientConfig>;
  private readonly clients = new Map<string, AuthenticatedClient>();
  private readonly perClient: KeyedBuckets;
  private readonly failuresPerIp: KeyedBuckets;
  private readonly trustProxy: boolean;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly reflector: Reflector,
    private readonly clock: Clock,
  ) {
    this.verifier = new ApiKeyVerifier(config.clients);
    for (const c of config.clients) {
      this.clients.set(c.id, { id: c.id, team: c.team, scopes: new Set(c.scopes), participants: c.participants, retailAccounts: c.retailAccounts });
    }
    const inbound = config.inbound;
    this.perClient = new KeyedBuckets(inbound.perClientBurst, inbound.perClientPerSecond);
    this.failuresPerIp = new KeyedBuckets(inbound.failedAuthPerIpPerMinute, inbound.failedAuthPerIpPerMinute / 60);
    this.trustProxy = config.server.trustProxy;
  }

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    this.admit(context.switchToHttp().getRequest<FastifyRequest>(), this.reflector.getAllAndOverride<Scope[] | undefined>(REQUIRED_SCOPES, targets) ?? []);
    return true;
  }

  /**
   * The whole admission of an HTTP request, for Nest routes (through canActivate) and for routes
   * registered on Fastify directly: API key (401), inbound rate (429), every required scope (403).
   */
  admit(request: FastifyRequest, required: readonly Scope[]): AuthenticatedClient {
    const client = this.authenticate(request.headers.authorization, request.ip);
    request.client = client;
    const limit = this.perClient.take(client.id, this.clock.now());
    if (!limit.allowed) {
      throw new RateLimitedError(`Client ${client.id} exceeds its inbound request rate.`, limit.retryAfterMs / 1000, { bucket: 'inbound.client' });
    }
    const missing = required.find((scope) => !client.scopes.has(scope));
    if (missing) throw new ForbiddenError(`Missing scope ${missing}.`, { missingScope: missing });
    return client;
  }

  /** The configured client of that id (a WebSocket ticket's holder), or undefined once it is gone from the config. */
  clientById(id: string): AuthenticatedClient | undefined {
    return this.clients.get(id);
  }

  /**
   * The client address of a raw request (a WebSocket upgrade, which has no Fastify request) as
   * Fastify's `request.ip` has it: behind `server.trustProxy`, the first X-Forwarded-For entry, so
   * failed logins are counted per client and not per load balancer.
   */
  addressOf(req: IncomingMessage): string {
    if (this.trustProxy) {
      const forwarded = req.headers['x-forwarded-for'];
      const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0].trim();
      if (first) return first;
    }
    return req.socket.remoteAddress ?? 'unknown';
  }

  /** Resolves a raw Authorization header to a client; shared with the WebSocket upgrade. */
  authenticate(header: string | undefined, ip: string): AuthenticatedClient {
    const now = this.clock.now();
    const wait = this.failuresPerIp.waitMs(ip, now);
    if (wait > 0) throw new RateLimitedError('Too many failed authentications from this address.', wait / 1000, { bucket: 'inbound.auth-failures' });
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    const identity = match ? this.verifier.verify(match[1]) : undefined;
    if (!identity) {
      this.failuresPerIp.take(ip, now);
      throw new UnauthenticatedError(match ? 'The API key is not valid.' : undefined);
    }
    return this.clients.get(identity.id) as AuthenticatedClient;
  }
}
