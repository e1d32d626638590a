import { z } from 'zod';

import { ClientMessageSchema, TOPIC_SYNTAX, WS_ERROR_CODES, WS_LIMITS } from './ws-protocol.js';

type JsonSchema = Record<string, unknown>;

const [subscribe, unsubscribe, ping] = ClientMessageSchema.options.map((option) => z.toJSONSchema(option) as JsonSchema);

const str = { type: 'string' };
const topic = { type: 'string', description: TOPIC_SYNTAX };

/** Server frames; the topic frames come from the fan-out hub (libs/fanout frame.codec.ts). */
const serverSchemas: Record<string, JsonSchema> = {
  frame: {
    type: 'object',
    required: ['type', 'topic', 'seq', 'ts', 'data'],
    properties: {
      type: { enum: ['snapshot', 'update', 'resync'], description: 'resync: state after a gap; replace what you hold' },
      topic,
      seq: { type: 'integer', description: 'per topic, consecutive across updates; the same on every gateway instance' },
      ts: { type: 'integer', description: 'ms since epoch when the gateway received the data' },
      data: { description: 'the upstream payload, unchanged' },
    },
  },
  ack: { type: 'object', required: ['type', 'id', 'topics'], properties: { type: { const: 'ack' }, id: str, topics: { type: 'array', items: topic } } },
  error: {
    type: 'object',
    required: ['type', 'code', 'message'],
    properties: {
      type: { const: 'error' },
      id: str,
      code: { enum: [...WS_ERROR_CODES] },
      message: str,
      topic,
      missingScope: str,
    },
  },
  pong: { type: 'object', required: ['type'], properties: { type: { const: 'pong' }, id: str } },
};

const message = (name: string, payload: JsonSchema, summary: string) => ({ name, contentType: 'application/json', summary, payload });
const ref = (name: string) => ({ $ref: `#/channels/stream/messages/${name}` });

/** AsyncAPI 3 description of `/ws`, served at GET /docs/ws. */
export const WS_ASYNCAPI = {
  asyncapi: '3.0.0',
  info: {
    title: 'Prediction-market gateway streams',
    version: '1',
    description:
      `One WebSocket for every stream. Limits per connection: frames up to ${WS_LIMITS.maxFrameBytes} bytes (close 1009), ` +
      `${WS_LIMITS.maxSubscriptions} topics, ${WS_LIMITS.maxFramesPerSecond} client frames per second (error, then close 1008). ` +
      `The server pings every ${WS_LIMITS.pingIntervalMs / 1000} s and drops a client that did not answer the previous ping. ` +
      'A slow client of account topics is closed with 1013 (reconnect and resume); market data is conflated instead. ' +
      'exchange.marketData.<symbol>: the full book per frame; after a lost upstream stream every topic gets a resync. ' +
      'exchange.orders.<participant> (read:orders; only participants the client is allowed): snapshot {orders: working orders}, ' +
      'then one update per {execution} or {cancelReject}; an account topic, never conflated or dropped; a resync after a lost upstream stream. ' +
      'exchange.dropcopy (read:dropcopy): the firm\'s executions, deduplicated, one update {executions} per upstream batch; ' +
      'subscribe with resumeFrom 0 for every batch since the stream opened; restarts and takeovers resume from the stored token (no resync). ' +
      'exchange.trades (read:dropcopy): trade capture reports the same way, one update {tradeCaptureReports} per batch, a later state of a trade passed on.',
  },
  servers: { gateway: { host: 'gateway', protocol: 'wss', security: [{ $ref: '#/components/securitySchemes/apiKey' }, { $ref: '#/components/securitySchemes/ticket' }] } },
  channels: {
    stream: {
      address: '/ws',
      description: 'A refused upgrade (missing, bad, used or expired credentials) is answered with HTTP 401 problem+json.',
      messages: {
        subscribe: message('subscribe', subscribe, 'Subscribe to topics; resumeFrom maps a topic to the last seq received'),
        unsubscribe: message('unsubscribe', unsubscribe, 'Leave topics'),
        ping: message('ping', ping, 'Application-level ping; answered with pong'),
        frame: message('frame', serverSchemas.frame, 'snapshot, update or resync of one topic'),
        ack: message('ack', serverSchemas.ack, 'The listed topics are subscribed (sent after their snapshot) or left'),
        error: message('error', serverSchemas.error, 'A refused frame or topic; forbidden names the missing scope'),
        pong: message('pong', serverSchemas.pong, 'Answer to ping'),
      },
    },
  },
  operations: {
    sendRequests: { action: 'send', channel: { $ref: '#/channels/stream' }, messages: ['subscribe', 'unsubscribe', 'ping'].map(ref) },
    receiveFrames: { action: 'receive', channel: { $ref: '#/channels/stream' }, messages: ['frame', 'ack', 'error', 'pong'].map(ref) },
  },
  components: {
    securitySchemes: {
      apiKey: { type: 'httpApiKey', in: 'header', name: 'Authorization', description: 'Bearer <api key> (servers)' },
      ticket: { type: 'httpApiKey', in: 'query', name: 'ticket', description: `one-time ticket from POST /ws/tickets, valid ${WS_LIMITS.ticketTtlMs / 1000} s (browsers)` },
    },
  },
} as const;
