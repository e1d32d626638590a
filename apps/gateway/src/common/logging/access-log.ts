import type { IncomingMessage } from 'node:http';

import { Inject, Injectable } from '@nestjs/common';
import { Clock, GATEWAY_CONFIG, LOG_DESTINATION, redactUrl, scrubText } from '@lib/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type DestinationStream, levels } from 'pino';
import type { GatewayConfig } from '../../config/gateway-config.schema.js';

const QUIET_ROUTES = new Set(['/metrics', '/health/live', '/health/ready']);
const INFO = levels.values.info;
const WARN = levels.values.warn;
const ERROR = levels.values.error;
/** Distinct user agents whose scrubbed form is remembered: a client sends the same one on every request. */
const USER_AGENTS_KEPT = 256;
/** Distinct client ids whose JSON form is remembered (clients are configured, so this bound is never reached in practice). */
const CLIENT_IDS_KEPT = 1_024;

/**
 * One line per request: who, what (secret query values and secret-shaped text redacted, no headers), status and time.
 *
 * The line has the shape of the gateway's pino lines (level, time, pid, the fields, msg), but this
 * class writes it to the log destination itself. Its fields are fixed, so one template does it, with
 * JSON.stringify for every string but the method (one of Node's constants). Through pino the same
 * line cost 17.4k of the ~152k instructions of a whole catalog cache hit (callgrind): its general
 * walk over an object (for-in, a character loop per string, dozens of concatenations).
 */
@Injectable()
export class AccessLog {
  /** The lowest pino level written; Infinity for 'silent'. */
  private readonly threshold: number;
  private readonly prefix = `,"pid":${process.pid},"log":"access","method":"`;
  private readonly userAgents = new Map<string, string>();
  private readonly clientIds = new Map<string, string>();
  private lastPeer = '';
  private lastPeerJson = '""';

  constructor(
    @Inject(LOG_DESTINATION) private readonly destination: DestinationStream,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly clock: Clock,
  ) {
    this.threshold = config.logging.level === 'silent' ? Infinity : levels.values[config.logging.level];
  }

  /** Called by CompletedRequests once the response is sent. */
  record(request: FastifyRequest, reply: FastifyReply, route: string | undefined): void {
    this.write(request.raw, request.id, request.client?.id, reply.statusCode, reply.elapsedTime, route);
  }

  /**
   * The line of one completed request, for the Fastify routes (record) and for the catalog hits served
   * before Fastify (CatalogFastPath). `urlJson`: the URL's scrubbed JSON form when the caller remembers it.
   */
  write(
    req: IncomingMessage,
    requestId: string,
    client: string | undefined,
    status: number,
    elapsedMs: number,
    route: string | undefined,
    urlJson?: string,
  ): void {
    const level = status >= 500 ? ERROR : status >= 400 ? WARN : INFO;
    if (level < this.threshold || (route !== undefined && QUIET_ROUTES.has(route))) return;
    const peer = req.socket.remoteAddress;
    // The URL and user agent are the client's free text: a key pasted into the path, any query
    // parameter or the user agent is scrubbed (scrubText costs one regex test unless something looks secret).
    const userAgent = req.headers['user-agent'];
    this.destination.write(
      `{"level":${level},"time":${this.clock.wallNow()}${this.prefix}${req.method}","url":${urlJson ?? this.urlJson(req.url ?? '')}` +
        (peer === undefined ? '' : `,"remoteAddress":${this.peerJson(peer)}`) +
        (userAgent === undefined ? '' : `,"userAgent":${this.userAgentJson(userAgent)}`) +
        // Every request id comes from requestIdOf: a UUID or a client's id of REQUEST_ID_SHAPE ([A-Za-z0-9._:-]), its own JSON.
        `,"requestId":"${requestId}"` +
        (client === undefined ? '' : `,"client":${this.clientJson(client)}`) +
        `,"status":${status},"ms":${Math.round(elapsedMs * 100) / 100},"msg":"request completed"}\n`,
    );
  }

  /** The URL as the access line writes it: secrets redacted and scrubbed, as a JSON string. */
  urlJson(url: string): string {
    return JSON.stringify(scrubText(redactUrl(url)));
  }

  /** The peer address as a JSON string; the last one is remembered (a busy gateway sees few peers: its clients or its load balancer). */
  private peerJson(peer: string): string {
    if (peer !== this.lastPeer) {
      this.lastPeer = peer;
      this.lastPeerJson = JSON.stringify(peer);
    }
    return this.lastPeerJson;
  }

  /** A configured client's id as a JSON string, remembered (the ids are the config's, a bounded set). */
  private clientJson(client: string): string {
    let json = this.clientIds.get(client);
    if (json === undefined) {
      json = JSON.stringify(client);
      if (this.clientIds.size < CLIENT_IDS_KEPT) this.clientIds.set(client, json);
    }
    return json;
  }

  /** The user agent scrubbed and as a JSON string, remembered for the first few hundred distinct ones. */
  private userAgentJson(userAgent: string): string {
    let json = this.userAgents.get(userAgent);
    if (json === undefined) {
      json = JSON.stringify(scrubText(userAgent));
      if (this.userAgents.size < USER_AGENTS_KEPT) this.userAgents.set(userAgent, json);
    }
    return json;
  }
}
