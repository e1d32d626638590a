import { randomBytes } from 'node:crypto';

/**
 * A fresh epoch: random, so two holdings never share one, whoever starts them and whatever Redis
 * remembers (an emptied Redis cannot hand out an epoch a second time, as a counter would).
 */
export function newEpoch(): string {
  return randomBytes(6).toString('base64url');
}
