import type { BudgetedReply } from '@lib/ratelimit';

import type { AuthenticatedClient } from '../../common/auth/authenticated-client.js';

/** spec 5.1.4: how the exchange names a participant. */
const PARTICIPANT = /^firms\/[^/]+\/users\/[^/]+$/;

type Json = unknown;

/**
 * What `/whoami` and `/users` show a client (payloads not shown upstream, so read generically): an
 * `admin` client sees the upstream answer as it is; any other sees only the participants it may act for
 * (every other `firms/…/users/…` value, and any record holding one, is left out) and, of `scopes`, only
 * the scopes it holds itself, not the gateway's upstream scope set.
 */
export function visibleIdentity(reply: BudgetedReply, client: AuthenticatedClient): BudgetedReply {
  if (client.scopes.has('admin') || reply.status >= 300) return reply;
  let body: Json;
  try {
    body = JSON.parse(reply.text);
  } catch {
    return { ...reply, text: '{}' };
  }
  return { ...reply, text: JSON.stringify(narrow(body, client)) };
}

const foreign = (value: Json, client: AuthenticatedClient): boolean =>
  typeof value === 'string' && PARTICIPANT.test(value) && !client.participants.includes(value);

/** True for a value or a record that names a participant the client may not see. */
function namesForeign(value: Json, client: AuthenticatedClient): boolean {
  if (foreign(value, client)) return true;
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).some((field) => foreign(field, client))
  );
}

function narrow(value: Json, client: AuthenticatedClient): Json {
  if (Array.isArray(value))
    return value.filter((item) => !namesForeign(item, client)).map((item) => narrow(item, client));
  if (typeof value !== 'object' || value === null) return value;
  const kept: Record<string, Json> = {};
  for (const [key, field] of Object.entries(value)) {
    if (foreign(field, client)) continue;
    kept[key] =
      key === 'scopes' && Array.isArray(field)
        ? field.filter((scope) => typeof scope === 'string' && (client.scopes as ReadonlySet<string>).has(scope))
        : narrow(field, client);
  }
  return kept;
}
