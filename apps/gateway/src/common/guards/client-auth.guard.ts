import type { IncomingMessage } from 'node:http';

import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiKeyVerifier } from '@lib/auth';
import {
  Clock,
  ForbiddenError,
  GATEWAY_CONFIG,
  RateLimitedError,
  type Scope,
  UnauthenticatedError,
  ValidationError,
} from '@lib/core';
import { KeyedBuckets } from '@lib/ratelimit';
import type { FastifyRequest } from 'fastify';

import { PUBLIC_ROUTE, REQUIRED_SCOPES } from '../decorators/auth.decorators.js';
import { ClientAddresses } from '../http/client-address.js';
import { headerCount } from '../http/raw-headers.js';
import type { AuthenticatedClient } from '../auth/authenticated-client.js';
import { feedScopeOf } from '../auth/feed-scope.js';
import type { ClientConfig, GatewayConfig } from '../../config/gateway-config.schema.js';

/** `Authorization: Bearer <key>`: the key is the first capture. */
const BEARER = /^Bearer\s+(\S+)\s*$/i;
/** Distinct Authorization headers knownClient remembers (a client sends one spelling of its key). */
const HEADERS_KEPT = 1_024;
/** How much of a refused key names its "prefix" for the failure count (`pmgw_` and 7 characters). */
const KEY_PREFIX_LENGTH = 12;

/**
 * Global guard: API key → client (401), per-client abuse limit (429), declared scopes (403).
 *
 * Failed authentications are counted per client address and per key prefix, so guessing is slow.
 * The count only ever slows further failures: a key that verifies is admitted whatever the counts
 * say, so nobody can lock a real client out by failing from its address (or its proxy's).
 */
@Injectable()
export class ClientAuthGuard implements CanActivate {
  private readonly verifier: ApiKeyVerifier<ClientConfig>;
  private readonly clients = new Map<string, AuthenticatedClient>();
  /**
   * knownClient's answers by whole Authorization header: only headers whose key already verified (so
   * no more than HEADERS_KEPT spellings of the configured keys), held in memory as the verifier holds
   * the keys; never logged or exported. The clients never change after boot.
   */
  private readonly byHeader = new Map<string, AuthenticatedClient>();
  private readonly perClient: KeyedBuckets;
  private readonly failures: KeyedBuckets;
  private readonly addresses: ClientAddresses;
  /** What each handler requires (its class's metadata folded in), by controller class and handler (an inherited handler may serve two classes). */
  private readonly routes = new WeakMap<object, WeakMap<object, 'public' | readonly Scope[]>>();

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly reflector: Reflector,
    private readonly clock: Clock,
  ) {
    this.verifier = new ApiKeyVerifier(config.clients);
    for (const c of config.clients) {
      const feedScope = feedScopeOf(c, config.clients);
      this.clients.set(c.id, {
        id: c.id,
        team: c.team,
        scopes: new Set(c.scopes),
        participants: c.participants,
        retailAccounts: c.retailAccounts,
        firmWide: c.firmWide,
        feedScope,
      });
    }
    const inbound = config.inbound;
    this.perClient = new KeyedBuckets(inbound.perClientBurst, inbound.perClientPerSecond);
    this.failures = new KeyedBuckets(inbound.failedAuthPerIpPerMinute, inbound.failedAuthPerIpPerMinute / 60);
    this.addresses = new ClientAddresses(config.server.trustProxy, config.server.trustedProxies);
  }

  canActivate(context: ExecutionContext): boolean {
    const route = this.routeOf(context);
    if (route === 'public') return true;
    this.admit(context.switchToHttp().getRequest<FastifyRequest>(), route);
    return true;
  }

  /** A handler's metadata never changes after boot: read once per handler (two Reflector lookups a request were about 1.7 % of an order's CPU). */
  private routeOf(context: ExecutionContext): 'public' | readonly Scope[] {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byHandler = this.routes.get(controller);
    const known = byHandler?.get(handler);
    if (known !== undefined) return known;
    const targets = [handler, controller];
    const route = this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)
      ? 'public'
      : (this.reflector.getAllAndOverride<Scope[] | undefined>(REQUIRED_SCOPES, targets) ?? []);
    if (!byHandler) this.routes.set(controller, (byHandler = new WeakMap()));
    byHandler.set(handler, route);
    return route;
  }

  /**
   * The whole admission of an HTTP request, for Nest routes (through canActivate) and for routes
   * registered on Fastify directly: the client (identified by the onRequest hook, before the body
   * was read), then every required scope (403).
   */
  admit(request: FastifyRequest, required: readonly Scope[]): AuthenticatedClient {
    const client = request.client ?? this.identify(request);
    const missing = required.find((scope) => !client.scopes.has(scope));
    if (missing) throw new ForbiddenError(`Missing scope ${missing}.`, { missingScope: missing });
    return client;
  }

  /**
   * API key (401) and inbound rate (429); sets `request.client`. Run on arrival, before anything is parsed.
   * `cancels`: a cancel route (@CancelRoute()), counted in the rate but never refused by it.
   */
  identify(request: FastifyRequest, cancels = false): AuthenticatedClient {
    const client = this.authenticate(request.headers.authorization, request.raw);
    request.client = client;
    const limit = this.perClient.take(client.id, this.clock.now());
    if (!limit.allowed && !cancels) {
      throw new RateLimitedError(`Client ${client.id} exceeds its inbound request rate.`, limit.retryAfterMs / 1000, {
        bucket: 'inbound.client',
      });
    }
    return client;
  }

  /**
   * The client of an Authorization header whose key already verified, with nothing hashed, counted or
   * thrown; undefined for anything else (no header, a bad or new key), which the caller then sends the
   * whole way through identify() to be verified or refused and counted as usual. For the catalog's hit
   * path (CatalogFastPath), which must not answer a refusal itself. Two Authorization headers are
   * "anything else" too: authenticate() refuses them, so they must not be served here on the first.
   */
  knownClient(req: IncomingMessage): AuthenticatedClient | undefined {
    const header = req.headers.authorization;
    if (header === undefined || headerCount(req.rawHeaders, 'authorization') > 1) return undefined;
    // A client sends the same header on every request: one map lookup instead of the regex's match and captures.
    const remembered = this.byHeader.get(header);
    if (remembered !== undefined) return remembered;
    const match = BEARER.exec(header);
    // Only keys already verified: a new or bad key is hashed once, by identify(), not twice.
    const identity = match ? this.verifier.known(match[1]) : undefined;
    const client = identity && this.clients.get(identity.id);
    if (client !== undefined && this.byHeader.size < HEADERS_KEPT) this.byHeader.set(header, client);
    return client;
  }

  /** One token of the client's inbound rate (what identify() takes) at `now` (default: the clock now); false, spending nothing, when it has none. */
  takeInbound(client: AuthenticatedClient, now = this.clock.now()): boolean {
    return this.perClient.take(client.id, now).allowed;
  }

  /** The configured client of that id (a WebSocket ticket's holder), or undefined once it is gone from the config. */
  clientById(id: string): AuthenticatedClient | undefined {
    return this.clients.get(id);
  }

  /** The client address of a raw request (see ClientAddresses): failed logins are counted per client, not per load balancer. */
  addressOf(req: IncomingMessage): string {
    return this.addresses.of(req);
  }

  /** Resolves a raw Authorization header to a client; shared with the WebSocket upgrade. The request's address is worked out only when the key fails. */
  authenticate(header: string | undefined, from: IncomingMessage): AuthenticatedClient {
    // Node keeps the first of several Authorization headers; a proxy in front may read the last: refused, not guessed.
    if (header !== undefined && headerCount(from.rawHeaders, 'authorization') > 1)
      throw new ValidationError([{ path: 'headers.authorization', message: 'send exactly one Authorization header' }]);
    const match = BEARER.exec(header ?? '');
    const identity = match ? this.verifier.verify(match[1]) : undefined;
    if (identity) return this.clients.get(identity.id) as AuthenticatedClient;
    return this.refuse(from, match?.[1], match ? 'The API key is not valid.' : undefined);
  }

  /**
   * The one answer to a failed login (a bad key over HTTP or on a WebSocket upgrade, an unknown or
   * spent ticket): 401, or 429 once the address or the key's prefix has failed too often. Counted
   * per address and per prefix, so neither rotating keys from one address nor one key from many
   * addresses guesses fast.
   */
  refuse(from: IncomingMessage, presented: string | undefined, detail?: string): never {
    const now = this.clock.now();
    const address = this.addressOf(from);
    const counted =
      presented === undefined ? [`ip:${address}`] : [`ip:${address}`, `key:${presented.slice(0, KEY_PREFIX_LENGTH)}`];
    const wait = Math.max(...counted.map((key) => this.failures.waitMs(key, now)));
    if (wait > 0)
      throw new RateLimitedError('Too many failed authentications from this address or with this key.', wait / 1000, {
        bucket: 'inbound.auth-failures',
      });
    for (const key of counted) this.failures.take(key, now);
    throw new UnauthenticatedError(detail);
  }
}
