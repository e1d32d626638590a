import { IDENTITY_KEYWORD, type IdentityKind, wireText } from '@lib/core';
import { z } from 'zod';

const PARTICIPANT_EXAMPLE = 'firms/DEVFIRM/users/alice';

/**
 * Request fields that name a participant or an order carry `x-identity` (see IDENTITY_KINDS in
 * @lib/core): the gateway binds each one to the calling client before any budget is spent.
 */
const marked = <S extends z.ZodType>(schema: S, kind: IdentityKind, description: string): S =>
  schema.meta({
    [IDENTITY_KEYWORD]: kind,
    description,
    ...(kind === 'accounts' ? { example: [PARTICIPANT_EXAMPLE] } : {}),
  });

const Participant = z.string().min(1).max(200);

/** The participant a request acts for: absent → the chosen one; another client's → 403. */
export const AccountFieldSchema = marked(
  Participant,
  'account',
  "firms/<FIRM>/users/<USER>, a participant the API key may act for; absent: the chosen participant (x-participant-id or the key's first). Any other: 403 naming the field.",
);

/** A participant a request names (user, client account or participant ids): checked, never filled in. */
export const ParticipantFieldSchema = marked(
  Participant,
  'participant',
  'firms/<FIRM>/users/<USER>, a participant the API key may act for. Any other: 403 naming the field.',
);

/** A participant filter: absent or empty means every participant of the key, never the whole firm. */
export const AccountListSchema = marked(
  z.array(Participant).max(100),
  'accounts',
  'participants the API key may act for; absent or empty: every participant of the key (never the whole firm). Any other: 403 naming the field.',
);

/** A funding account the request moves money through: one of the chosen participant's, else 403. */
export const FundingAccountFieldSchema = marked(
  z.string().min(1).max(200),
  'funding-account',
  "one of the chosen participant's funding accounts (GET /exchange/v1/funding/accounts); absent: the processor's account of that participant. Any other: 403 naming the field.",
);

/** An order the request changes: it must be a working order of the chosen participant, else 404. */
export const OrderIdFieldSchema = marked(
  // Journaled as the record's order id, and looked up upstream: see wireText.
  wireText(128).min(1),
  'order',
  "a working order of the chosen participant (x-participant-id or the key's first); the gateway asks the exchange as that participant. Any other: 404.",
);
