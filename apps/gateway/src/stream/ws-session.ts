import { type Clock, DomainError, systemClock } from '@lib/core';
import type { FanoutHub, HubClient, ResumePoint, TopicSourceRegistry } from '@lib/fanout';
import { StreamCapacityError, UnknownTopicError } from '@lib/fanout';
import type { RawData, WebSocket } from 'ws';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import type { TopicAllowance } from './ws-topic-allowance.js';
import {
  type ClientMessage,
  type ErrorMessage,
  WS_LIMITS,
  idOf,
  parseClientMessage,
  topicRule,
} from './ws-protocol.js';

/** RFC 6455 §7.4.1: 1008 policy violation. */
const POLICY_VIOLATION = 1008;

/**
 * One authenticated `/ws` connection: parses client frames, checks scopes and bounds, and hands
 * subscriptions to the hub. Every refused frame gets an error frame; none is dropped silently.
 */
export class WsSession {
  /** Topics asked for (subscribed or being subscribed), counted against the subscription bound. */
  private readonly topics = new Set<string>();
  /** Each topic's subscribe under way (until its ack is sent): an unsubscribe of the topic waits for it. */
  private readonly subscribing = new Map<string, Promise<void>>();
  private windowStart = 0;
  private framesInWindow = 0;
  /** A pong (or any frame) since the last ping. */
  private alive = true;
  /** Ping timer ticks since the last ping. */
  private ticks = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly client: HubClient,
    private readonly caller: AuthenticatedClient,
    private readonly hub: FanoutHub,
    /** The topic families the libs declared: admission reads each topic's family there. */
    private readonly declared: TopicSourceRegistry,
    /** The retail account of account topics that name none (the environment's first). */
    private readonly retailAccount: string | undefined,
    /** Ping every this many ticks of the endpoint's ping timer. */
    private readonly pingEveryTicks: number,
    /**
     * One token of the caller's inbound rate on this instance (`inbound.perClientPerSecond`, the one its HTTP
     * requests spend), false when it has none: a client's frames over all its connections to this instance
     * are bounded, not only each connection's.
     */
    private readonly takeInbound: () => boolean,
    /** What a narrowed ticket lets this connection open; none: whatever the client may read. */
    private readonly allowance?: TopicAllowance,
    private readonly clock: Clock = systemClock,
  ) {
    // A topic the upstream gave up (its error message sent) is no longer one of this connection's subscriptions.
    client.onTopicEnded = (topic) => this.topics.delete(topic);
    ws.on('message', (data, isBinary) => this.onFrame(data, isBinary));
    ws.on('pong', () => (this.alive = true));
  }

  /**
   * Called on each tick of the endpoint's ping timer; pings every `pingEveryTicks` ticks. False means the
   * client answered nothing since the last ping and was dropped.
   */
  heartbeat(): boolean {
    if (++this.ticks < this.pingEveryTicks) return true;
    this.ticks = 0;
    if (!this.alive) {
      this.ws.terminate();
      return false;
    }
    this.alive = false;
    this.ws.ping();
    return true;
  }

  private onFrame(data: RawData, isBinary: boolean): void {
    this.alive = true;
    if (!this.withinRate()) return;
    const text = Buffer.isBuffer(data)
      ? data.toString('utf8')
      : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8');
    if (!this.takeInbound()) {
      // The client as a whole is over its rate on this instance (on other connections, or over HTTP): this
      // frame is refused, naming its id so the request it carried is answered; the connection is kept (the
      // connection's own bound in withinRate still closes one that floods).
      return this.error({
        id: idOf(text),
        code: 'rate_limited',
        message: `client ${this.caller.id} exceeds its inbound rate on this instance (inbound.perClientPerSecond): frame refused`,
      });
    }
    if (isBinary)
      return this.error({ code: 'bad_request', message: 'binary frames are not accepted: send JSON text frames' });
    const message = parseClientMessage(text);
    if (typeof message === 'string') return this.error({ id: idOf(text), code: 'bad_request', message });
    void this.handle(message);
  }

  private withinRate(): boolean {
    const now = this.clock.now();
    if (now - this.windowStart >= 1_000) {
      this.windowStart = now;
      this.framesInWindow = 0;
    }
    this.framesInWindow += 1;
    if (this.framesInWindow <= WS_LIMITS.maxFramesPerSecond) return true;
    if (this.framesInWindow === WS_LIMITS.maxFramesPerSecond + 1) {
      this.error({ code: 'rate_limited', message: `more than ${WS_LIMITS.maxFramesPerSecond} frames per second` });
      this.client.close(POLICY_VIOLATION, 'frame rate exceeded');
    }
    return false;
  }

  private async handle(message: ClientMessage): Promise<void> {
    switch (message.type) {
      case 'ping':
        return this.client.sendJson({ type: 'pong', id: message.id });
      case 'unsubscribe':
        // A subscribe of the topic under way is let finish first (its join, its frames, its ack): before,
        // an unsubscribe that came while the join was under way was acknowledged and then undone by the
        // join, the topic kept sending, and it was no longer counted against the connection's 100 topics
        // (a probe held 200 on one connection).
        await Promise.all(message.topics.map((topic) => this.subscribing.get(topic)));
        for (const topic of message.topics) {
          this.topics.delete(topic);
          this.hub.unsubscribe(this.client, topic);
        }
        return this.client.sendJson({ type: 'ack', id: message.id, topics: message.topics });
      case 'subscribe':
        return this.subscribe(message.id, message.topics, message.resumeFrom ?? {});
    }
  }

  private async subscribe(
    id: string,
    topics: string[],
    resumeFrom: Record<string, number | ResumePoint>,
  ): Promise<void> {
    const wanted = [...new Set(topics)].filter((topic) => this.admit(id, topic));
    const fresh = wanted.filter((topic) => !this.topics.has(topic));
    if (this.topics.size + fresh.length > WS_LIMITS.maxSubscriptions) {
      return this.error({
        id,
        code: 'too_many_subscriptions',
        message: `at most ${WS_LIMITS.maxSubscriptions} topics per connection`,
      });
    }
    fresh.forEach((topic) => this.topics.add(topic));
    const done = (async () => {
      const results = await Promise.all(
        wanted.map((topic) => this.subscribeOne(id, topic, resumePointOf(resumeFrom[topic]))),
      );
      const acked = wanted.filter((_, i) => results[i]);
      if (acked.length > 0) this.client.sendJson({ type: 'ack', id, topics: acked });
    })();
    for (const topic of wanted) this.subscribing.set(topic, done);
    try {
      await done;
    } finally {
      for (const topic of wanted) if (this.subscribing.get(topic) === done) this.subscribing.delete(topic);
    }
  }

  /** Syntax and authorization of one topic; a refusal is reported here, naming the topic. */
  private admit(id: string, topic: string): boolean {
    const rule = topicRule(this.declared, topic);
    if (!rule) {
      this.error({ id, topic, code: 'unknown_topic', message: `"${topic}" is not a topic this endpoint serves` });
      return false;
    }
    if (this.allowance && !this.allowance.permits(topic, rule.family)) {
      this.error({
        id,
        topic,
        code: 'forbidden',
        message: `This connection's ticket does not allow ${topic}: its minter narrowed it to ${this.allowance.entries.length} topics or families.`,
      });
      return false;
    }
    if (!this.caller.scopes.has(rule.scope)) {
      this.error({ id, topic, code: 'forbidden', missingScope: rule.scope, message: `Missing scope ${rule.scope}.` });
      return false;
    }
    const account = rule.accountName ?? this.retailAccount;
    if (rule.account && !(account && this.caller.retailAccounts.includes(account))) {
      this.error({
        id,
        topic,
        code: 'forbidden',
        message: `This client may not read the retail account ${account ?? '(none configured)'}.`,
      });
      return false;
    }
    if (rule.participant !== undefined && !this.caller.participants.includes(rule.participant)) {
      this.error({
        id,
        topic,
        code: 'forbidden',
        message: `This client may not read the participant ${rule.participant}.`,
      });
      return false;
    }
    return true;
  }

  private async subscribeOne(id: string, topic: string, resumeFrom: ResumePoint | undefined): Promise<boolean> {
    try {
      await this.hub.subscribe(this.client, topic, { resumeFrom });
      return true;
    } catch (error) {
      this.topics.delete(topic);
      if (error instanceof StreamCapacityError) {
        this.error({ id, topic, code: 'too_many_streams', cap: error.cap, limit: error.limit, message: error.message });
        return false;
      }
      const unknown = error instanceof UnknownTopicError;
      const detail = error instanceof DomainError ? error.message : 'the upstream refused or failed the subscription';
      this.error({ id, topic, code: unknown ? 'unknown_topic' : 'upstream_failed', message: detail });
      return false;
    }
  }

  private error(error: Omit<ErrorMessage, 'type'>): void {
    this.client.sendJson({ type: 'error', ...error });
  }
}

/** A bare seq names no epoch (see ws-protocol.ts): the hub answers it with a `resync`. */
function resumePointOf(value: number | ResumePoint | undefined): ResumePoint | undefined {
  return typeof value === 'number' ? { seq: value } : value;
}
