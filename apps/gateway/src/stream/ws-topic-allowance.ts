import type { TopicSourceRegistry } from '@lib/fanout';

import { WS_LIMITS, topicFamilySyntaxes, topicRule } from './ws-protocol.js';

/**
 * What a narrowed ticket lets its connection subscribe to: topics named exactly, or whole families
 * named by their syntax (`exchange.marketData.<symbol>`). Scopes and custody still apply on top: an
 * allowance narrows what the minting client may read, it never widens it.
 */
export class TopicAllowance {
  private readonly topics: ReadonlySet<string>;
  private readonly families: ReadonlySet<string>;

  constructor(
    readonly entries: readonly string[],
    declared: TopicSourceRegistry,
  ) {
    const syntaxes = new Set(topicFamilySyntaxes(declared));
    this.families = new Set(entries.filter((entry) => syntaxes.has(entry)));
    this.topics = new Set(entries.filter((entry) => !syntaxes.has(entry)));
  }

  /** `family` is the topic's family syntax (topicRule). */
  permits(topic: string, family: string): boolean {
    return this.topics.has(topic) || this.families.has(family);
  }
}

/** Why an entry cannot be part of an allowance, or undefined when it can. */
export function allowanceEntryProblem(declared: TopicSourceRegistry, entry: string): string | undefined {
  const syntaxes = topicFamilySyntaxes(declared);
  if (syntaxes.includes(entry) || topicRule(declared, entry)) return undefined;
  return `not a topic this endpoint serves nor a topic family (${syntaxes.join(' | ')})`;
}

/** A connection subscribes to at most this many topics, so a longer list of exact topics buys nothing. */
export const MAX_ALLOWANCE_ENTRIES = WS_LIMITS.maxSubscriptions;
