import { Injectable } from '@nestjs/common';

import { UnknownTopicError } from '../fanout.error.js';
import { type TopicFamily, topicPatternOf, topicPrefixOf } from './topic-family.js';
import type { TopicPolicy, TopicSource } from './topic-source.types.js';

export interface TopicRoute {
  /** The registered prefix; it labels metrics, so their cardinality stays bounded. */
  prefix: string;
  source: TopicSource;
  policy: TopicPolicy;
}

/** A topic read against the declared families: its family and the placeholders it names. */
export interface TopicMatch {
  family: TopicFamily;
  /** The value of each named placeholder (`participant`, `account`) in the topic. */
  names: Readonly<Record<string, string | undefined>>;
}

/**
 * The declared topic families and the routes from a topic to the stream client that serves it, by
 * prefix (`retail.marketData.` → the retail market-data client). Each lib's topics provider adds its
 * families at start (`add`); the hub resolves through the routes, the `/ws` endpoint admits and
 * documents through the families.
 */
@Injectable()
export class TopicSourceRegistry {
  private routes: TopicRoute[] = [];
  private declared: { family: TopicFamily; pattern: RegExp }[] = [];

  /** Declares a family and routes its topics to `source` (families sharing a prefix share one route). */
  add(family: TopicFamily, source: TopicSource): this {
    if (this.declared.some((entry) => entry.family.syntax === family.syntax))
      throw new Error(`the topic family "${family.syntax}" is already declared`);
    const prefix = topicPrefixOf(family.syntax);
    const shared = this.routes.find((route) => route.prefix === prefix);
    if (shared && (shared.source !== source || shared.policy !== family.policy))
      throw new Error(`"${family.syntax}" shares the prefix "${prefix}" with another source or policy`);
    if (!shared) this.register(prefix, source, family.policy);
    this.declared = [...this.declared, { family, pattern: topicPatternOf(family) }];
    return this;
  }

  /**
   * Routes a bare prefix, declaring no family: the hub's own mechanism, for hub tests. Production
   * topics are declared with `add`, so that the endpoint admits and documents them.
   */
  register(prefix: string, source: TopicSource, policy: TopicPolicy): this {
    if (this.routes.some((route) => route.prefix === prefix))
      throw new Error(`a topic source is already registered for "${prefix}"`);
    // Longest prefix first, so `exchange.marketData.` wins over `exchange.`.
    this.routes = [...this.routes, { prefix, source, policy }].sort((a, b) => b.prefix.length - a.prefix.length);
    return this;
  }

  resolve(topic: string): TopicRoute {
    const route = this.routes.find((candidate) => topic.startsWith(candidate.prefix));
    if (!route) throw new UnknownTopicError(topic);
    return route;
  }

  /** Every declared family, in declaration order. */
  families(): readonly TopicFamily[] {
    return this.declared.map((entry) => entry.family);
  }

  /** The declared family a topic belongs to, or undefined when it is no topic of any. */
  match(topic: string): TopicMatch | undefined {
    for (const { family, pattern } of this.declared) {
      const match = pattern.exec(topic);
      if (match) return { family, names: { ...match.groups } };
    }
    return undefined;
  }
}
