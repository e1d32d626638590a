import type { Scope } from '@lib/core';
import type { StreamCap, TopicSourceRegistry } from '@lib/fanout';
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
  /**
   * The ping interval of a connection that asked for cancel-on-disconnect (a multiple of it divides
   * `pingIntervalMs`): a hung bot (process stopped, TCP open) is dropped within two of these, and its grace
   * then runs, instead of 30–60 s during which its orders rest unwatched.
   */
  codPingIntervalMs: 5_000,
  /** POST /ws/tickets: a browser has this long to open the socket with it. */
  ticketTtlMs: 30_000,
} as const;

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

/**
 * How `/ws` admits a topic: by the family its lib declared (TopicSourceRegistry.add), with that
 * family's scope and account rule; undefined when no declared family has the topic.
 */
export function topicRule(families: TopicSourceRegistry, topic: string): TopicRule | undefined {
  const match = families.match(topic);
  if (!match) return undefined;
  const { syntax, scope, account } = match.family;
  return { family: syntax, scope, account, accountName: match.names.account, participant: match.names.participant };
}

/** Every declared family's syntax, as the documentation shows it (a ticket may be narrowed to families). */
export function topicFamilySyntaxes(families: TopicSourceRegistry): string[] {
  return families.families().map((family) => family.syntax);
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
  z
    .object({ type: z.literal('subscribe'), id, topics, resumeFrom: z.record(z.string(), resumePoint).optional() })
    .strict(),
  z.object({ type: z.literal('unsubscribe'), id, topics }).strict(),
  z.object({ type: z.literal('ping'), id: id.optional() }).strict(),
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

export const WS_ERROR_CODES = [
  'bad_request',
  'unknown_topic',
  'forbidden',
  'too_many_subscriptions',
  'too_many_streams',
  'rate_limited',
  'upstream_failed',
] as const;
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
