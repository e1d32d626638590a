import { RETAIL_ACCOUNT_NAME, type Scope } from '@lib/core';
import type { StreamCap } from '@lib/fanout';
import { z } from 'zod';

/** Bounds per connection; each one is documented in the AsyncAPI description. */
export const WS_LIMITS = {
  /** A subscribe of 100 topics is a few KiB; anything near this is abuse (ws closes with 1009). */
  maxFrameBytes: 64 * 1024,
  maxSubscriptions: 100,
  /** Client frames per one-second window; beyond it an error frame, then close 1008. */
  maxFramesPerSecond: 50,
  /** Server ping interval: a client that has not answered the previous ping by the next is dropped. */
  pingIntervalMs: 30_000,
  /** POST /ws/tickets: a browser has this long to open the socket with it. */
  ticketTtlMs: 30_000,
} as const;

const slug = '[A-Za-z0-9][A-Za-z0-9._-]{0,127}';
const accountName = `(?<account>${RETAIL_ACCOUNT_NAME})`;
/** An exchange participant, `firms/<firm>/users/<user>` (spec 5.1.4). */
const participantName = '(?<participant>firms/[A-Za-z0-9._-]{1,64}/users/[A-Za-z0-9._-]{1,64})';

/**
 * Every topic the endpoint serves, in the syntax the AsyncAPI document shows (`<name>` is a slug,
 * symbol or account name, `[...]` optional), and the scope reading it needs; the matching pattern is
 * built from it. Account topics without `account.<account>` are the gateway's default retail account
 * (the environment's first). A `<participant>` topic is read only by clients allowed that participant.
 */
const TOPICS: { syntax: string; scope: Scope; account: boolean }[] = [
  { syntax: 'retail.marketData.<slug>', scope: 'read:marketdata', account: false },
  { syntax: 'retail.marketDataLite.<slug>', scope: 'read:marketdata', account: false },
  { syntax: 'retail.trade.<slug>', scope: 'read:marketdata', account: false },
  { syntax: 'retail.orders[.<slug>]', scope: 'read:orders', account: true },
  { syntax: 'retail.positions', scope: 'read:positions', account: true },
  { syntax: 'retail.balances', scope: 'read:positions', account: true },
  { syntax: 'retail.account.<account>.orders[.<slug>]', scope: 'read:orders', account: true },
  { syntax: 'retail.account.<account>.positions', scope: 'read:positions', account: true },
  { syntax: 'retail.account.<account>.balances', scope: 'read:positions', account: true },
  { syntax: 'exchange.marketData.<symbol>', scope: 'read:marketdata', account: false },
  { syntax: 'exchange.orders.<participant>', scope: 'read:orders', account: false },
  { syntax: 'exchange.dropcopy', scope: 'read:dropcopy', account: false },
  { syntax: 'exchange.trades', scope: 'read:dropcopy', account: false },
  // Position changes come from the drop-copy service (DropCopyAPI, scope read:dropcopy upstream).
  { syntax: 'exchange.positions.<participant>', scope: 'read:dropcopy', account: false },
  { syntax: 'exchange.instrumentState', scope: 'read:instruments', account: false },
  { syntax: 'ops.overview', scope: 'admin', account: false },
];

/** Every topic family by its syntax, as the documentation shows it (a ticket may be narrowed to families). */
export const TOPIC_FAMILY_SYNTAXES: readonly string[] = TOPICS.map((t) => t.syntax);

/** The topic grammar for documentation: every syntax, `|`-separated. */
export const TOPIC_SYNTAX = TOPIC_FAMILY_SYNTAXES.join(' | ');

const patternOf = (syntax: string) =>
  new RegExp(
    `^${syntax
      .replaceAll('.', '\\.')
      .replace(/\[(.*)\]/, '(?:$1)?')
      .replace(/<(?!account>|participant>)\w+>/g, slug)
      .replace('<account>', accountName)
      .replace('<participant>', participantName)}$`,
  );
const TOPIC_FAMILIES = TOPICS.map((topic) => ({ ...topic, pattern: patternOf(topic.syntax) }));

export interface TopicRule {
  /** The family's syntax (`exchange.marketData.<symbol>`). */
  family: string;
  scope: Scope;
  /** An account topic: the client must be allowed its retail account. */
  account: boolean;
  /** The account an account topic names; none for the gateway's default account. */
  accountName?: string;
  /** The exchange participant a topic names: the client must be allowed it. */
  participant?: string;
}

export function topicRule(topic: string): TopicRule | undefined {
  for (const family of TOPIC_FAMILIES) {
    const match = family.pattern.exec(topic);
    if (match) return { family: family.syntax, scope: family.scope, account: family.account, accountName: match.groups?.account, participant: match.groups?.participant };
  }
  return undefined;
}

const id = z.string().min(1).max(64);
const seq = z.number().int().nonnegative();
/**
 * The last frame received of a topic: `{epoch, seq}`. A bare seq (the form before epochs) names no
 * epoch, so the gateway cannot tell whose numbering it is: such a client always gets a `resync`.
 */
const resumePoint = z.union([seq, z.object({ epoch: z.string().min(1).max(64), seq }).strict()]);
const topics = z.array(z.string().min(1).max(200)).min(1).max(WS_LIMITS.maxSubscriptions);

export const ClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('subscribe'), id, topics, resumeFrom: z.record(z.string(), resumePoint).optional() }).strict(),
  z.object({ type: z.literal('unsubscribe'), id, topics }).strict(),
  z.object({ type: z.literal('ping'), id: id.optional() }).strict(),
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

export const WS_ERROR_CODES = ['bad_request', 'unknown_topic', 'forbidden', 'too_many_subscriptions', 'too_many_streams', 'rate_limited', 'upstream_failed'] as const;
export type WsErrorCode = (typeof WS_ERROR_CODES)[number];

export interface AckMessage {
  type: 'ack';
  id: string;
  topics: string[];
}

export interface ErrorMessage {
  type: 'error';
  id?: string;
  code: WsErrorCode;
  message: string;
  topic?: string;
  missingScope?: Scope;
  /** `too_many_streams`: the cap that refused the topic and its value. */
  cap?: StreamCap;
  limit?: number;
}

export interface PongMessage {
  type: 'pong';
  id?: string;
}

/** Parses one client text frame; a string is the reason it was refused. */
export function parseClientMessage(text: string): ClientMessage | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return 'the frame is not JSON';
  }
  const parsed = ClientMessageSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  return `${issue.path.join('.') || 'frame'}: ${issue.message}`;
}

/** The `id` of a refused frame, when it had one, so the client can match the error to its request. */
export function idOf(text: string): string | undefined {
  try {
    const raw: unknown = JSON.parse(text);
    const value = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
    return typeof value === 'string' ? value.slice(0, 64) : undefined;
  } catch {
    return undefined;
  }
}
