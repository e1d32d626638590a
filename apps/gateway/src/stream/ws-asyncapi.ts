import { type TopicFamily, topicPatternOf } from '@lib/fanout';
import { z } from 'zod';

import { DEFAULT_MAX_CONNECTIONS_PER_CLIENT } from './streams.config.js';
import { ClientMessageSchema, WS_ERROR_CODES, WS_LIMITS } from './ws-protocol.js';

type JsonSchema = Record<string, unknown>;

const [subscribe, unsubscribe, ping] = ClientMessageSchema.options.map(
  (option) => z.toJSONSchema(option) as JsonSchema,
);

const str = { type: 'string' };

/**
 * The topic schema: one alternative per declared family, with its pattern, scope and what it carries
 * (the family's own declaration), and the grammar of all of them as the description.
 */
function topicSchemaOf(families: readonly TopicFamily[]): JsonSchema {
  return {
    type: 'string',
    description: families.map((family) => family.syntax).join(' | '),
    oneOf: families.map((family) => ({
      title: family.syntax,
      pattern: topicPatternOf(family).source,
      description: `${family.syntax} (${family.scope}${family.account ? '; an account topic' : ''}): ${family.description}`,
      'x-scope': family.scope,
    })),
  };
}

/** Server frames; the topic frames come from the fan-out hub (libs/fanout frame.codec.ts). */
const serverSchemasOf = (topic: JsonSchema): Record<string, JsonSchema> => ({
  frame: {
    type: 'object',
    required: ['type', 'topic', 'epoch', 'seq', 'ts', 'data'],
    properties: {
      type: {
        enum: ['snapshot', 'update', 'resync'],
        description: 'resync: the state after a gap or in a new epoch; replace what you hold',
      },
      topic,
      epoch: {
        type: 'string',
        description:
          'the holding that numbered the frame (opaque). seq compares only within one epoch; a new epoch arrives only as a resync with the fresh state. ' +
          'An instance that lost Redis or stopped hearing the holder serves the topic under an epoch of its own; two instances never serve one epoch.',
      },
      seq: {
        type: 'integer',
        description: 'per topic and epoch, +1 per frame and never decreasing; the same on every gateway instance',
      },
      ts: { type: 'integer', description: 'ms since epoch when the gateway received the data' },
      data: { description: 'the upstream payload, unchanged' },
    },
  },
  ack: {
    type: 'object',
    required: ['type', 'id', 'topics'],
    properties: { type: { const: 'ack' }, id: str, topics: { type: 'array', items: topic } },
  },
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
      cap: {
        enum: ['client', 'team', 'firm'],
        description:
          "too_many_streams: the cap that refused the topic: the client's own (its distinct stream-holding exchange topics, streams.exchange.maxTopicsPerClient, " +
          'or a market-data symbol cap of its own; both overridable per client in streams.clients.<id>), ' +
          "its team's share of the firm's exchange streams or symbols (streams.exchange.teamShares, teamSymbolShares), or what all teams may hold (firmStreams less reserve, marketDataSymbols)",
      },
      limit: { type: 'integer', description: 'too_many_streams: the value of that cap' },
    },
  },
  pong: { type: 'object', required: ['type'], properties: { type: { const: 'pong' }, id: str } },
});

const message = (name: string, payload: JsonSchema, summary: string) => ({
  name,
  contentType: 'application/json',
  summary,
  payload,
});
const ref = (name: string) => ({ $ref: `#/channels/stream/messages/${name}` });

/**
 * AsyncAPI 3 description of `/ws`, served at GET /docs/ws: the protocol is the gateway's, the topics
 * are the families the libs declared (their syntax, scope and description), so a new family is
 * documented by its declaration.
 */
export function wsAsyncApiOf(families: readonly TopicFamily[]) {
  const serverSchemas = serverSchemasOf({ $ref: '#/components/schemas/topic' });
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Prediction-market gateway streams',
      version: '1',
      description:
        `One WebSocket for every stream. Limits per connection: frames up to ${WS_LIMITS.maxFrameBytes} bytes (close 1009), ` +
        `${WS_LIMITS.maxSubscriptions} topics, ${WS_LIMITS.maxFramesPerSecond} client frames per second (error, then close 1008). ` +
        "Every client frame also spends one token of the client's inbound rate on the instance (inbound.perClientPerSecond, shared with its HTTP requests, over all its connections there): a frame over it gets a rate_limited error naming its id, and the connection stays open. " +
        `The server pings every ${WS_LIMITS.pingIntervalMs / 1000} s (every ${WS_LIMITS.codPingIntervalMs / 1000} s on a connection that asked for cancelOnDisconnect) ` +
        'and drops a client that answered nothing since the previous ping. ' +
        'A slow client of account topics is closed with 1013 (reconnect and resume); market data is conflated instead. ' +
        "Exchange market-data topics spend the firm's market-data symbols (streams.exchange.marketDataSymbols; they share one multiplexed upstream stream): " +
        'each open topic is one symbol however many clients watch it, ' +
        "charged to the team whose client opened it until its last subscriber leaves and its linger ends. A team holds at most its share of the firm's " +
        'symbols, counted across every gateway instance (no per-client count unless streams.clients.<id>.maxMarketDataSymbols sets one); ' +
        'a client holds at most streams.exchange.maxTopicsPerClient distinct stream-holding exchange topics (the families below) over all its connections; ' +
        'a topic past a cap is refused with error too_many_streams naming the cap and its value. ' +
        "The other exchange topics hold upstream streams and spend the firm's streams (firmStreams less reserve, the reserve kept for the market-data streams) the same way, " +
        'one each (orders and positions topics one per participant, though participants share a call). ' +
        'A topic another client already holds costs nothing and is never refused for the team or firm caps. ' +
        'The topics: ' +
        families.map((family) => `${family.syntax} (${family.scope}): ${family.description}`).join(' '),
    },
    servers: {
      gateway: {
        host: 'gateway',
        protocol: 'wss',
        security: [{ $ref: '#/components/securitySchemes/apiKey' }, { $ref: '#/components/securitySchemes/ticket' }],
      },
    },
    channels: {
      stream: {
        address: '/ws',
        description:
          'A refused upgrade (missing, bad, used or expired credentials) is answered with HTTP 401 problem+json; a client already holding ' +
          `streams.maxConnectionsPerClient connections on the instance (default ${DEFAULT_MAX_CONNECTIONS_PER_CLIENT}, its browsers' tickets included; streams.clients.<id>.maxConnections for one client) ` +
          'gets HTTP 429 problem+json with Retry-After, before the handshake. A ticket minted with a body {topics: [topic or family syntax, ...]} opens only those: ' +
          'a subscribe outside the list gets error forbidden naming the topic.',
        messages: {
          subscribe: message(
            'subscribe',
            subscribe,
            'Subscribe to topics; resumeFrom maps a topic to the last {epoch, seq} received: the frames after it when this instance holds them in that epoch, ' +
              'else a resync with the current state (never a replay of another numbering). A bare seq (the older form) names no epoch and is answered with a resync, except 0: the replay window of the current epoch from its start.',
          ),
          unsubscribe: message('unsubscribe', unsubscribe, 'Leave topics'),
          ping: message('ping', ping, 'Application-level ping; answered with pong'),
          frame: message('frame', serverSchemas.frame, 'snapshot, update or resync of one topic'),
          ack: message(
            'ack',
            serverSchemas.ack,
            'The listed topics are subscribed (sent after their snapshot) or left',
          ),
          error: message(
            'error',
            serverSchemas.error,
            'A refused frame or topic; forbidden names the missing scope, too_many_streams the cap and its value. ' +
              'Unasked, upstream_failed naming a subscribed topic: the upstream gave it up (a symbol the exchange delisted), the subscription is over',
          ),
          pong: message('pong', serverSchemas.pong, 'Answer to ping'),
        },
      },
    },
    operations: {
      sendRequests: {
        action: 'send',
        channel: { $ref: '#/channels/stream' },
        messages: ['subscribe', 'unsubscribe', 'ping'].map(ref),
      },
      receiveFrames: {
        action: 'receive',
        channel: { $ref: '#/channels/stream' },
        messages: ['frame', 'ack', 'error', 'pong'].map(ref),
      },
    },
    components: {
      schemas: { topic: topicSchemaOf(families) },
      securitySchemes: {
        apiKey: { type: 'httpApiKey', in: 'header', name: 'Authorization', description: 'Bearer <api key> (servers)' },
        ticket: {
          type: 'httpApiKey',
          in: 'query',
          name: 'ticket',
          description: `one-time ticket from POST /ws/tickets, valid ${WS_LIMITS.ticketTtlMs / 1000} s (browsers)`,
        },
      },
    },
  } as const;
}
