import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { DomainError, ErrorCode, GATEWAY_CONFIG, clip, requestIdOf, toDomainError } from '@lib/core';
import { FanoutHub, TopicSourceRegistry } from '@lib/fanout';
import { RetailTopics } from '@lib/retail';
import { type WebSocket, WebSocketServer } from 'ws';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { ClientAuthGuard } from '../common/guards/client-auth.guard.js';
import { feedViewerOf } from '../common/auth/feed-scope.js';
import { CancelOnDisconnect } from '../risk/cancel-on-disconnect.service.js';
import { writeRawProblem } from '../common/filters/raw-problem.js';
import { WsConnectionCounter } from './ws-connection.counter.js';
import { WS_LIMITS } from './ws-protocol.js';
import { WsSession } from './ws-session.js';
import { type TakenTicket, WsTicketStore } from './ws-ticket.store.js';
import { TopicAllowance } from './ws-topic-allowance.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

export const WS_PATH = '/ws';
/** The scheme and authority of an absolute-form request target. */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/** Who opened the connection, and what a narrowed ticket lets it open. */
interface WsLogin {
  caller: AuthenticatedClient;
  allowance?: TopicAllowance;
  /** The ticket it logged in with, given back when the connection is refused after all. */
  ticket?: TakenTicket;
}

/**
 * `/ws` on the gateway's own HTTP server. A plain `ws` server on the 'upgrade' event rather than
 * @nestjs/platform-ws: the credentials are checked before the handshake completes, so a refused
 * client gets a real HTTP 401 (a Nest gateway only sees the connection once it is open).
 */
@Injectable()
export class WsEndpoint implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WsEndpoint.name);
  // perMessageDeflate stays off: the hub writes pre-framed, uncompressed frames straight to the socket.
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: WS_LIMITS.maxFrameBytes,
    perMessageDeflate: false,
  });
  private readonly sessions = new Set<WsSession>();
  private readonly sockets = new Set<WebSocket>();
  private readonly connections: WsConnectionCounter;
  private pingTimer: NodeJS.Timeout | undefined;
  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    void this.upgrade(req, socket, head).catch((error: unknown) => {
      // Never a crash for one connection: what upgrade() did not foresee is logged and answered as a refusal.
      this.logger.error(`WebSocket upgrade failed: ${String(error)}`);
      refuse(req, socket, toDomainError(error));
    });

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly auth: ClientAuthGuard,
    private readonly tickets: WsTicketStore,
    private readonly hub: FanoutHub,
    private readonly declared: TopicSourceRegistry,
    private readonly retailTopics: RetailTopics,
    private readonly cancelOnDisconnect: CancelOnDisconnect,
  ) {
    this.connections = WsConnectionCounter.of(config.streams);
  }

  onApplicationBootstrap(): void {
    this.adapterHost.httpAdapter.getHttpServer().on('upgrade', this.onUpgrade);
    // The sessions are judged from setImmediate, after the event loop's poll phase: a pong that arrived while
    // the loop was stalled (a busy CPU) is read before its connection is judged, never counted as missed.
    this.pingTimer = setInterval(
      () => setImmediate(() => this.sessions.forEach((session) => session.heartbeat())),
      WS_LIMITS.codPingIntervalMs,
    );
    this.pingTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.pingTimer);
    this.adapterHost.httpAdapter.getHttpServer().off('upgrade', this.onUpgrade);
    for (const ws of this.sockets) ws.close(1001, 'server shutting down');
    this.wss.close();
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    // The request target is split by hand, not parsed as a URL: a target WHATWG refuses (`//`, `//[`)
    // must be a plain 404 here, and /ws is matched as sent, never after dot segments are resolved.
    // An absolute-form target (`http://host/ws`, RFC 9112 section 3.2.2) is read as its path and query.
    const given = req.url ?? '/';
    const origin = ABSOLUTE_FORM.exec(given);
    const target = origin ? given.slice(origin[0].length) || '/' : given;
    const at = target.indexOf('?');
    const path = at === -1 ? target : target.slice(0, at);
    // Another protocol (curl --http2 asks for h2c on http://) at an HTTP route: served as the plain request it
    // also is. Before any listener is added: the HTTP server adds its own, and a connection may do this many times.
    if (path !== WS_PATH && req.headers.upgrade?.toLowerCase() !== 'websocket')
      return this.asPlainHttp(req, socket, head);
    socket.on('error', () => socket.destroy());
    if (path !== WS_PATH)
      return refuse(req, socket, new DomainError(ErrorCode.NOT_FOUND, `No WebSocket endpoint at ${clip(path)}.`));
    const query = new URLSearchParams(at === -1 ? '' : target.slice(at + 1));
    let login: WsLogin | undefined;
    let graceMs: number | undefined;
    try {
      login = await this.authenticate(req, query);
      assertHandshake(req);
      assertQuery(query);
      graceMs = this.cancelOnDisconnectOf(login, query);
      if (!socket.destroyed) this.connections.admit(login.caller.id, socket);
    } catch (error) {
      // Refused after its ticket was taken: the connection opened nothing, the ticket is good again.
      if (login?.ticket) await this.tickets.giveBack(login.ticket);
      return refuse(req, socket, toDomainError(error));
    }
    if (socket.destroyed) return;
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      try {
        this.accept(ws, login, graceMs);
      } catch (error) {
        // The handshake is answered already (101): the socket speaks WebSocket now, so it is closed as one,
        // and a cancel-on-disconnect it asked for counts it gone (its grace runs, as for any lost connection).
        this.logger.error(`WebSocket of ${login.caller.id} not accepted: ${String(error)}`);
        if (graceMs !== undefined) void this.cancelOnDisconnect.disconnected(login.caller.id, graceMs);
        ws.close(1011, 'internal error');
      }
    });
  }

  /**
   * A request that asks to upgrade to a protocol other than WebSocket (`Upgrade: h2c`, which curl sends with
   * `--http2` on an http:// URL), at a path that is no WebSocket endpoint: the upgrade is ignored (RFC 9110
   * section 7.8 lets a server do so) and the request is served over HTTP/1.1. Node hands every request with
   * an Upgrade header to this event, its parser already gone; the request's head is written again without the
   * upgrade (Upgrade, HTTP2-Settings, and those tokens of Connection) before the bytes that followed it, and
   * the socket given back to the HTTP server as a connection: its parser reads the request anew, body and
   * keep-alive included, through every route, guard and limit. Header names and values are as Node's parser
   * accepted them (no CR, LF or NUL), so writing them again cannot split the request.
   */
  private asPlainHttp(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const raw = req.rawHeaders;
    let lines = `${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}\r\n`;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      if (UPGRADE_HEADERS.has(name)) continue;
      if (name === 'connection') {
        const kept = raw[i + 1]!.split(',')
          .map((token) => token.trim())
          .filter((token) => token !== '' && !UPGRADE_HEADERS.has(token.toLowerCase()));
        if (kept.length > 0) lines += `${raw[i]}: ${kept.join(', ')}\r\n`;
        continue;
      }
      lines += `${raw[i]}: ${raw[i + 1]}\r\n`;
    }
    socket.unshift(Buffer.concat([Buffer.from(`${lines}\r\n`, 'latin1'), head]));
    this.adapterHost.httpAdapter.getHttpServer().emit('connection', socket);
  }

  /**
   * `?cancelOnDisconnect=<seconds>`: the client's open orders are cancelled when it is gone that long (needs
   * write:orders). Not on a ticket narrowed to topics: it lets a browser read what its backend allowed, and
   * this is no read but the client's brake (closing the tab would cancel every order of the client, and an
   * open one would hold a crashed bot's own cancel-on-disconnect off).
   */
  private cancelOnDisconnectOf({ caller, allowance }: WsLogin, query: URLSearchParams): number | undefined {
    const graceMs = CancelOnDisconnect.graceOf(query.get('cancelOnDisconnect'));
    if (graceMs !== undefined && !caller.scopes.has('write:orders'))
      throw new DomainError(ErrorCode.FORBIDDEN, 'cancelOnDisconnect needs the write:orders scope.', {
        extensions: { scope: 'write:orders' },
      });
    if (graceMs !== undefined && allowance !== undefined)
      throw new DomainError(
        ErrorCode.FORBIDDEN,
        'cancelOnDisconnect is not taken on a ticket narrowed to topics: use the API key or a ticket issued without topics.',
      );
    return graceMs;
  }

  /** `?ticket=` (browsers, narrowed to what the ticket allows) or `Authorization: Bearer` (servers), through the HTTP routes' guard. */
  private async authenticate(req: IncomingMessage, query: URLSearchParams): Promise<WsLogin> {
    const ticket = query.get('ticket');
    if (ticket === null) return { caller: await this.auth.authenticate(req.headers.authorization, req) };
    const redeemed = await this.tickets.redeem(ticket);
    const caller = redeemed === undefined ? undefined : this.auth.clientById(redeemed.clientId);
    // A bad ticket is a failed login like a bad key: counted, and slowed once too many.
    if (!caller || !redeemed)
      this.auth.refuse(req, ticket, 'The ticket is unknown, used or expired: POST /ws/tickets for a new one.');
    return {
      caller,
      ticket: redeemed,
      allowance: redeemed.topics ? new TopicAllowance(redeemed.topics, this.declared) : undefined,
    };
  }

  private accept(ws: WebSocket, { caller, allowance }: WsLogin, graceMs: number | undefined): void {
    if (graceMs !== undefined) void this.cancelOnDisconnect.connectedNow(caller.id, graceMs);
    const session = new WsSession(
      ws,
      this.hub.connect(ws, {}, { client: caller.id, team: caller.team }, feedViewerOf(caller)),
      caller,
      this.hub,
      this.declared,
      this.retailTopics.defaultAccount,
      graceMs === undefined ? WS_LIMITS.pingIntervalMs / WS_LIMITS.codPingIntervalMs : 1,
      () => this.auth.takeInbound(caller),
      allowance,
    );
    this.sessions.add(session);
    this.sockets.add(ws);
    ws.on('error', (error) => this.logger.debug(`WebSocket of ${caller.id}: ${error.message}`));
    ws.once('close', () => {
      this.sessions.delete(session);
      this.sockets.delete(ws);
      if (graceMs !== undefined) void this.cancelOnDisconnect.disconnected(caller.id, graceMs);
    });
  }
}

/**
 * The handshake fields RFC 6455 (section 4.2.1) requires, checked after authentication: a refusal is a
 * problem document naming the header, where the ws library would answer its own HTML.
 */
function assertHandshake(req: IncomingMessage): void {
  if (req.method !== 'GET')
    throw new DomainError(ErrorCode.METHOD_NOT_ALLOWED, 'A WebSocket handshake is a GET request.', {
      headers: { Allow: 'GET' },
    });
  const invalid = (header: string, message: string, headers: Record<string, string> = {}): never => {
    throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The WebSocket handshake is malformed.', {
      errors: [{ path: `headers.${header}`, message }],
      headers,
    });
  };
  if (req.headers.upgrade?.toLowerCase() !== 'websocket') invalid('upgrade', "expected 'websocket'");
  const key = req.headers['sec-websocket-key'];
  if (key === undefined || !/^[+/0-9A-Za-z]{22}==$/.test(key))
    invalid('sec-websocket-key', 'expected 16 random bytes in base64');
  if (req.headers['sec-websocket-version'] !== '13')
    invalid('sec-websocket-version', "expected '13'", { 'Sec-WebSocket-Version': '13' });
}

/** The headers (and Connection tokens) of an upgrade that asPlainHttp drops. */
const UPGRADE_HEADERS = new Set(['upgrade', 'http2-settings']);

/** The query parameters `/ws` reads; any other is refused rather than ignored. */
const WS_QUERY = new Set(['ticket', 'cancelOnDisconnect']);

/**
 * A query parameter `/ws` does not read is a 400 naming it, as the HTTP routes' strict queries are: a bot
 * that spelt its brake otherwise (`cancelondisconnect=30`) was connected with no brake and no word of it.
 */
function assertQuery(query: URLSearchParams): void {
  const unknown = [...new Set(query.keys())].filter((name) => !WS_QUERY.has(name));
  if (unknown.length === 0) return;
  throw new DomainError(
    ErrorCode.VALIDATION_FAILED,
    '/ws takes the query parameters ticket and cancelOnDisconnect only.',
    {
      errors: unknown.slice(0, 10).map((name) => ({ path: `query.${clip(name)}`, message: 'unknown query parameter' })),
    },
  );
}

/** Answers the upgrade request with a problem document and closes the socket once it is written. */
function refuse(req: IncomingMessage, socket: Duplex, error: DomainError): void {
  writeRawProblem(socket, error, requestIdOf(req));
}
