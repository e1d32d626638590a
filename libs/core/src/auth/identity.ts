/**
 * The OpenAPI keyword that marks a request field naming an identity (issue 14): the gateway's identity
 * binder reads it to bind every such field to the calling client, and the two-client matrix test reads
 * it from `/docs/json` to try another client's identity in every marked place.
 */
export const IDENTITY_KEYWORD = 'x-identity';

/**
 * - `account`: one participant the request acts for; absent → the chosen participant (x-participant-id or
 *   the client's default); one the client may not use → 403 naming the field.
 * - `participant`: a participant the request names without acting for it; checked the same way, never filled.
 * - `accounts`: a participant list that filters what is read; absent or empty → every participant the client may use.
 * - `order`: an exchange order id; it must be a working order of the chosen participant, else 404.
 * - `retail-order`: a retail order id; the upstream key it is signed with sees only its own orders (404 otherwise).
 * - `funding-account`: a funding account id; it must be one of the chosen participant's funding accounts
 *   (one naming a participant the client may not use is refused at once), else 403 naming the field.
 */
export const IDENTITY_KINDS = [
  'account',
  'participant',
  'accounts',
  'order',
  'retail-order',
  'funding-account',
] as const;
export type IdentityKind = (typeof IDENTITY_KINDS)[number];
