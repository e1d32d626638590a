import { Injectable } from '@nestjs/common';

import { UnknownTopicError } from '../fanout.error.js';
import type { TopicPolicy, TopicSource } from './topic-source.types.js';

export interface TopicRoute {
  /** The registered prefix; it labels metrics, so their cardinality stays bounded. */
  prefix: string;
  source: TopicSource;
  policy: TopicPolicy;
}

/**
 * Maps a topic to the stream client that serves it, by prefix (`retail.marketData.` →
 * the retail market-data client). Stream-client modules register themselves at start.
 */
@Injectable()
export class TopicSourceRegistry {
  private routes: TopicRoute[] = [];

  register(prefix: string, source: TopicSource, policy: TopicPolicy): this {
    if (this.routes.some((route) => route.prefix === prefix)) throw new Error(`a topic source is already registered for "${prefix}"`);
    // Longest prefix first, so `exchange.marketData.` wins over `exchange.`.
    this.routes = [...this.routes, { prefix, source, policy }].sort((a, b) => b.prefix.length - a.prefix.length);
    return this;
  }

  resolve(topic: string): TopicRoute {
    const route = this.routes.find((candidate) => topic.startsWith(candidate.prefix));
    if (!route) throw new UnknownTopicError(topic);
    return route;
  }
}
