import { TOPIC_FAMILY_SYNTAXES, WS_LIMITS, topicRule } from './ws-protocol.js';

/**
 * What a narrowed ticket lets its connection subscribe to: topics named exactly, or whole families
 * named by their syntax (`exchange.marketData.<symbol>`). Scopes and custody still apply on top: an
 * allowance narrows what the minting client may read, it never widens it.
 */
export class TopicAllowance {
  private readonly topics: ReadonlySet<string>;
  private readonly families: ReadonlySet<string>;

  constructor(readonly entries: readonly string[]) {
    this.families = new Set(entries.filter((entry) => FAMILIES.has(entry)));
    this.topics = new Set(entries.filter((entry) => !FAMILIES.has(entry)));
  }

  /** `family` is the topic's family syntax (topicRule). */
  permits(topic: string, family: string): boolean {
    return this.topics.has(topic) || this.families.has(family);
  }
}

const FAMILIES = new Set(TOPIC_FAMILY_SYNTAXES);

/** Why an entry cannot be part of an allowance, or undefined when it can. */
export function allowanceEntryProblem(entry: string): string | undefined {
  if (FAMILIES.has(entry) || topicRule(entry)) return undefined;
  return `not a topic this endpoint serves nor a topic family (${TOPIC_FAMILY_SYNTAXES.join(' | ')})`;
}

/** A connection subscribes to at most this many topics, so a longer list of exact topics buys nothing. */
export const MAX_ALLOWANCE_ENTRIES = WS_LIMITS.maxSubscriptions;
