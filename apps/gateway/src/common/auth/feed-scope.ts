import type { ClientConfig } from '../../config/gateway-config.schema.js';
import type { Viewer } from '@lib/fanout';

/**
 * What a client reads of the firm-wide feeds (`exchange.dropcopy`, `exchange.trades`): `firm`, every
 * participant's records, only with the `firmWide` grant or when it holds every participant the
 * configuration names; else `participants`, its own participants' records (the feeds' view policy).
 */
export type FeedScope = 'firm' | 'participants';

export function feedScopeOf(
  client: Pick<ClientConfig, 'firmWide' | 'participants'>,
  clients: readonly Pick<ClientConfig, 'participants'>[],
): FeedScope {
  if (client.firmWide) return 'firm';
  const held = new Set(client.participants);
  const every = new Set(clients.flatMap((other) => other.participants));
  return every.size > 0 && [...every].every((participant) => held.has(participant)) ? 'firm' : 'participants';
}

/** The hub's viewer of a client reading only its participants; none (the whole feed) for `firm`. */
export function feedViewerOf(client: { feedScope: FeedScope; participants: readonly string[] }): Viewer | undefined {
  if (client.feedScope === 'firm') return undefined;
  const principals = new Set(client.participants);
  return { key: [...principals].sort().join('\n'), principals };
}
