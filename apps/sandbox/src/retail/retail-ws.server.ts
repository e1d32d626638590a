import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { WebSocketServer } from 'ws';

import { MatchingEngine } from '../engine/index.js';
import { SandboxClock } from '../shared/sandbox-clock.js';
import { SandboxCounters } from '../shared/sandbox-counters.js';
import { RETAIL_SIGNATURE, type RetailSignatureParts, verifyRetailSignature } from './retail-signature.js';
import { RetailVenue } from './retail-venue.js';
import { RetailWsMessages } from './retail-ws.messages.js';
import { type RetailWsChannel, RetailWsSession } from './retail-ws.session.js';

const CHANNELS: Record<string, RetailWsChannel> = { '/v1/ws/markets': 'markets', '/v1/ws/private': 'private' };

/**
 * The two retail channels on the retail surface's own port: a `ws` server without a server of its
 * own, fed the HTTP server's upgrades once each carries a valid signature (GET of the channel path).
 * Engine events are listened to only while a connection is open.
 */
@Injectable()
export class RetailWebSockets implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RetailWebSockets.name);
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sessions = new Set<RetailWsSession>();
  private stopListening: (() => void)[] = [];
  private server: Server | undefined;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(RETAIL_SIGNATURE) private readonly signature: RetailSignatureParts,
    private readonly engine: MatchingEngine,
    private readonly retail: RetailVenue,
    private readonly clock: SandboxClock,
    private readonly counters: SandboxCounters,
    @Inject(RetailWsMessages) private readonly messages: RetailWsMessages,
  ) {}

  onApplicationBootstrap(): void {
    this.server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    this.server.on('upgrade', this.upgrade);
    // The upgrade answer is dated by the sandbox clock like every REST answer.
    this.wss.on('headers', (headers: string[]) => headers.push(`Date: ${this.httpDate()}`));
  }

  /** Before the HTTP server closes: it would wait for upgraded sockets forever. */
  beforeApplicationShutdown(): void {
    this.server?.off('upgrade', this.upgrade);
    for (const session of this.sessions) session.drop();
    this.wss.close();
  }

  private readonly upgrade = (
    request: Parameters<WebSocketServer['handleUpgrade']>[0],
    socket: Duplex,
    head: Buffer,
  ): void => {
    const target = request.url ?? '/';
    const channel = CHANNELS[target.split('?')[0]];
    if (!channel) return this.refuse(socket, 404, 'Not Found', 'no such channel');
    const check = verifyRetailSignature(this.signature, 'GET', target, request.headers);
    if (!check.ok) return this.refuse(socket, 401, 'Unauthorized', check.message);
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      this.counters.count(`retail.ws.connected.${channel}`);
      const session = new RetailWsSession(
        ws,
        channel,
        check.key.keyId,
        this.engine,
        this.messages,
        this.retail.heartbeatMs,
      );
      this.adopt(session);
      ws.on('close', () => this.forget(session));
    });
  };

  private refuse(socket: Duplex, status: number, reason: string, message: string): void {
    const body = JSON.stringify({ message });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nDate: ${this.httpDate()}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }

  private adopt(session: RetailWsSession): void {
    this.sessions.add(session);
    this.retail.connections.add(session);
    if (this.sessions.size === 1) this.listen();
  }

  private forget(session: RetailWsSession): void {
    this.sessions.delete(session);
    this.retail.connections.delete(session);
    if (this.sessions.size > 0) return;
    for (const stop of this.stopListening) stop();
    this.stopListening = [];
  }

  private listen(): void {
    const { engine } = this;
    this.stopListening = [
      engine.on('book', (event) => this.each((session) => session.book(event))),
      engine.on('trade', (event) => this.each((session) => session.trade(event))),
      engine.on('execution', (event) => this.each((session) => session.execution(event))),
      engine.on('position', (event) => this.each((session) => session.position(event))),
      engine.on('balance', (event) => this.each((session) => session.balance(event))),
    ];
  }

  /** A listener that throws would fail the engine operation that raised the event: a channel's fault stays here. */
  private each(deliver: (session: RetailWsSession) => void): void {
    for (const session of this.sessions) {
      try {
        deliver(session);
      } catch (error) {
        this.logger.error(
          `retail channel update failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
      }
    }
  }

  private httpDate(): string {
    return new Date(this.clock.now()).toUTCString();
  }
}
