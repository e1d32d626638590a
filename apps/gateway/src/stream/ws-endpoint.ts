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
import { WsTicketStore } from './ws-ticket.store.js';
import { TopicAllowance } from './ws-topic-allowance.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

export const WS_PATH = '/ws';

/** Who opened the connection, and what a narrowed ticket lets it open. */
interface WsLogin {
  caller: AuthenticatedClient;
  allowance?: TopicAllowance;
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
    void this.upgrade(req, socket, head);

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
    this.pingTimer = setInterval(
      () => this.sessions.forEach((session) => session.heartbeat()),
      WS_LIMITS.pingIntervalMs,
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
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://gateway');
    if (url.pathname !== WS_PATH)
      return refuse(
        req,
        socket,
        new DomainError(ErrorCode.NOT_FOUND, `No WebSocket endpoint at ${clip(url.pathname)}.`),
      );
    let login: WsLogin;
    let graceMs: number | undefined;
    try {
      login = await this.authenticate(req, url);
      graceMs = this.cancelOnDisconnectOf(login.caller, url);
      if (!socket.destroyed) this.connections.admit(login.caller.id, socket);
    } catch (error) {
      return refuse(req, socket, toDomainError(error));
    }
    if (socket.destroyed) return;
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, login, graceMs));
  }

  /** `?cancelOnDisconnect=<seconds>`: the client's open orders are cancelled when it is gone that long (needs write:orders). */
  private cancelOnDisconnectOf(caller: AuthenticatedClient, url: URL): number | undefined {
    const graceMs = CancelOnDisconnect.graceOf(url.searchParams.get('cancelOnDisconnect'));
    if (graceMs !== undefined && !caller.scopes.has('write:orders'))
      throw new DomainError(ErrorCode.FORBIDDEN, 'cancelOnDisconnect needs the write:orders scope.', {
        extensions: { scope: 'write:orders' },
      });
    return graceMs;
  }

  /** `?ticket=` (browsers, narrowed to what the ticket allows) or `Authorization: Bearer` (servers), through the HTTP routes' guard. */
  private async authenticate(req: IncomingMessage, url: URL): Promise<WsLogin> {
    const ticket = url.searchParams.get('ticket');
    if (ticket === null) return { caller: await this.auth.authenticate(req.headers.authorization, req) };
    const redeemed = await this.tickets.redeem(ticket);
    const caller = redeemed === undefined ? undefined : this.auth.clientById(redeemed.clientId);
    // A bad ticket is a failed login like a bad key: counted, and slowed once too many.
    if (!caller)
      this.auth.refuse(req, ticket, 'The ticket is unknown, used or expired: POST /ws/tickets for a new one.');
    return { caller, allowance: redeemed?.topics ? new TopicAllowance(redeemed.topics, this.declared) : undefined };
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

/** Answers the upgrade request with a problem document and closes the socket once it is written. */
function refuse(req: IncomingMessage, socket: Duplex, error: DomainError): void {
  writeRawProblem(socket, error, requestIdOf(req));
}
