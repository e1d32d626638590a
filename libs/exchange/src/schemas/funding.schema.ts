import { JsonObjectSchema } from './wire-types.schema.js';

/**
 * Deposit processors whose `POST /v1/<processor>/deposits` the exchange serves. Spec 4.1 names
 * `checkout` and hides the other vendor's name as `<processor_a>`; `processor-a` stands for it until
 * the real path segment is known, and the list is what an operator would extend.
 */
export const DEFAULT_DEPOSIT_PROCESSORS: readonly string[] = ['checkout', 'processor-a'];

/** Funding, position and balance payloads: not shown (spec 2.8, 4.1); passed through. */
export const DepositRequestSchema = JsonObjectSchema;
export const BalanceRequestSchema = JsonObjectSchema;
