import type { Scope } from '@lib/core';

import type { TopicPolicy } from './topic-source.types.js';

/**
 * One family of `/ws` topics, declared once, in the lib whose stream client sources it: the
 * gateway's topic table, its admission and its AsyncAPI document are read from these declarations,
 * and the hub routes the family's topics to its source by the syntax's literal head.
 */
export interface TopicFamily {
  /**
   * The topics, as the documentation shows them: `<name>` a placeholder (a slug unless `placeholders`
   * names its pattern), `[...]` an optional tail (`retail.orders[.<slug>]`). The text before the first
   * placeholder or optional tail is the family's routing prefix (it labels metrics).
   */
  syntax: string;
  /** The scope a client needs to read the family. */
  scope: Scope;
  /**
   * A retail account topic: the client must be allowed the account an `<account>` placeholder names,
   * or else the gateway's default retail account.
   */
  account: boolean;
  /**
   * Patterns (regex source, no anchors) of placeholders other than a slug. A `<participant>` names an
   * exchange participant the client must be allowed; an `<account>` the retail account above.
   */
  placeholders?: Readonly<Record<string, string>>;
  policy: TopicPolicy;
  /** What a subscriber receives, for the AsyncAPI document. */
  description: string;
}

/** A `<slug>`, `<symbol>` or any placeholder without a pattern of its own. */
export const TOPIC_SLUG = '[A-Za-z0-9][A-Za-z0-9._-]{0,127}';

/** The routing prefix of a family: its syntax up to the first placeholder or optional tail. */
export function topicPrefixOf(syntax: string): string {
  const end = syntax.search(/[<[]/);
  return end < 0 ? syntax : syntax.slice(0, end);
}

/** The anchored pattern of a family's topics; each placeholder is a named group. */
export function topicPatternOf(family: Pick<TopicFamily, 'syntax' | 'placeholders'>): RegExp {
  const body = family.syntax
    .replaceAll('.', '\\.')
    .replace(/\[(.*)\]/, '(?:$1)?')
    .replace(/<(\w+)>/g, (_, name: string) => `(?<${name}>${family.placeholders?.[name] ?? TOPIC_SLUG})`);
  return new RegExp(`^${body}$`);
}
