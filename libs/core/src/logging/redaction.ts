/**
 * Names that never reach a log line with their value. Matched case-insensitively as header names,
 * body/object keys (any depth, by the log formatter's walk in logging.module.ts) and query parameters.
 */
export const SECRET_NAMES = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-pm-access-key',
  'x-pm-signature',
  'x-pm-timestamp',
  'client_assertion',
  'access_token',
  'access-token',
  'refresh_token',
  'token',
  'ticket',
  'api_key',
  'api-key',
  'x-api-key',
  'apikey',
  'apiKey',
  'privateKey',
  'private_key',
  'secretKey',
  'secret_key',
  'secret',
  'password',
  'signature',
] as const;

const SECRET_SET = new Set(SECRET_NAMES.map((n) => n.toLowerCase()));
export const REDACTED = '[redacted]';

export function isSecretName(name: string): boolean {
  return SECRET_SET.has(name.toLowerCase());
}

/** pino `redact` paths: the fast path for the shapes pino-http logs. */
export const REDACT_PATHS: string[] = [
  ...SECRET_NAMES.map((n) => `req.headers["${n.toLowerCase()}"]`),
  ...SECRET_NAMES.map((n) => `res.headers["${n.toLowerCase()}"]`),
  ...SECRET_NAMES.map((n) => `*["${n}"]`),
  ...SECRET_NAMES.map((n) => `*.*["${n}"]`),
];

/** Patterns of secret material that must not survive even inside free text (an error message, say). */
const SECRET_PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWTs: assertions and access tokens
  /\bBearer(?:\s|%20|\+)+[A-Za-z0-9._~+/=%-]{8,}/gi,
  /pmgw_[A-Za-z0-9_-]{16,}/g, // the gateway's own API keys, wherever they stand
  /[A-Za-z0-9+/]{40,}={1,2}/g, // padded base64: signatures (an Ed25519 one is 86 characters and ==), digests
  /(?:[A-Za-z0-9]|%2[BF]){40,}(?:%3D){1,2}/gi, // the same, percent-encoded in a URL
];
/**
 * Unpadded base64url runs of 256 bits or more (a key, a token, a signature without its padding).
 * Only runs that mix upper case, lower case and digits count: slugs and paths are lower case.
 */
const BASE64URL_RUN = /[A-Za-z0-9_-]{43,}/g;
const looksRandom = (run: string) => /[A-Z]/.test(run) && /[a-z]/.test(run) && /\d/.test(run);

/** Literal marks of secret material: a key, a JWT, a bearer value, PEM armour, a base64 pad (also escaped). */
const SECRET_MARK = /pmgw_|eyJ|earer|EARER|PRIVATE KEY|==|%3[Dd]/;
/**
 * 20 base64 characters in a row without `-` or `/`: words, slugs and path segments are shorter,
 * while a random 256-bit base64url value holds such a run 97% of the time (and a gateway key is also
 * marked by its prefix). Anchored at a run's start, so one pass over the text.
 */
const RANDOM_RUN = /(?:^|[^A-Za-z0-9+_])[A-Za-z0-9+_]{20}/;

/**
 * The cheap test in front of the scrub: true when the text may hold something secret-shaped. The
 * access line runs it on every request's URL and user agent, so it is two regexes that only look
 * ahead a fixed way; only the rare text it flags goes through every pattern.
 */
const maybeSecret = (text: string): boolean => SECRET_MARK.test(text) || (text.length >= 20 && RANDOM_RUN.test(text));

/** Replaces anything secret-shaped in free text (messages, URLs, user agents) by [redacted]. */
export function scrubText(text: string): string {
  if (!maybeSecret(text)) return text;
  let out = text;
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, REDACTED);
  return out.replace(BASE64URL_RUN, (run) => (looksRandom(run) ? REDACTED : run));
}

/** True when the text holds something scrubText would replace. */
export function holdsSecret(text: string): boolean {
  return scrubText(text) !== text;
}

/** A query that may name a secret: a secret name as a parameter, or any escape that could spell one. */
const MAYBE_SECRET_QUERY = new RegExp(`(?:^|&)(?:${[...SECRET_SET].join('|')})(?:=|&|$)|[%+]`, 'i');

/**
 * Replaces the values of secret-named query parameters; the path stays readable. A query that
 * cannot name a secret (the usual case, on every logged request) is returned as it came.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0 || !MAYBE_SECRET_QUERY.test(url.slice(q + 1))) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of [...params.keys()]) if (isSecretName(key)) params.set(key, REDACTED);
  return `${url.slice(0, q)}?${params.toString()}`;
}
