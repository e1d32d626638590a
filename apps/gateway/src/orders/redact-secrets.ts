import { REDACTED, isSecretName } from '@lib/core';

/** A copy of a request body with every secret-named field (key, token, signature, ...) replaced: what the journal keeps. */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = isSecretName(key) ? REDACTED : withoutSecrets(item);
  return out;
}
