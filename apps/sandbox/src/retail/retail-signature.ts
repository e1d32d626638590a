import { verify } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

import type { RegisteredRetailKey, RetailKeys } from '../shared/retail-keys.js';
import type { SandboxClock } from '../shared/sandbox-clock.js';
import type { SandboxCounters } from '../shared/sandbox-counters.js';
import { singleHeader } from '../shared/single-header.js';

export type RetailRejection =
  'missing_header' | 'unknown_key' | 'bad_timestamp' | 'stale_timestamp' | 'malformed_signature' | 'bad_signature';

export type RetailSignatureCheck =
  { ok: true; key: RegisteredRetailKey } | { ok: false; reason: RetailRejection; message: string };

/** What a signature check needs: the onboarded keys, the server clock, and the counters its outcomes go to. */
export interface RetailSignatureParts {
  readonly retailKeys: Pick<RetailKeys, 'get'>;
  readonly clock: Pick<SandboxClock, 'now'>;
  readonly counters: Pick<SandboxCounters, 'count'>;
}

/** Nest token of the retail surface's RetailSignatureParts. */
export const RETAIL_SIGNATURE = Symbol('RETAIL_SIGNATURE');

/** spec §5.2 and §8: a timestamp more than 30 s from the server clock, either way, is refused. */
export const RETAIL_TIMESTAMP_WINDOW_MS = 30_000;
// An Ed25519 signature is 64 bytes: 86 base64 characters and two of padding (standard alphabet).
const SIGNATURE = /^[A-Za-z0-9+/]{86}==$/;
const MILLISECONDS = /^\d{1,16}$/;

/** The signed bytes (upstream-facts): UTF-8 of `<timestamp><METHOD><pathname>` with no separators. */
export function retailSigningInput(timestamp: string, method: string, pathname: string): Buffer {
  return Buffer.from(`${timestamp}${method.toUpperCase()}${pathname}`, 'utf8');
}

/**
 * Checks the three X-PM-* headers of a retail REST request or WebSocket upgrade and counts the
 * outcome. `pathname` may be a whole request target: its query string is dropped, as it is not signed.
 */
export function verifyRetailSignature(
  parts: RetailSignatureParts,
  method: string,
  pathname: string,
  headers: IncomingHttpHeaders,
): RetailSignatureCheck {
  const result = check(parts, method, pathname.split('?')[0], headers);
  if (result.ok) {
    parts.counters.count(`retail.accepted.key.${result.key.keyId}`);
    parts.counters.count(`retail.accepted.fingerprint.${result.key.fingerprint}`);
  } else {
    parts.counters.count(`retail.rejected.${result.reason}`);
  }
  return result;
}

function check(
  parts: RetailSignatureParts,
  method: string,
  pathname: string,
  headers: IncomingHttpHeaders,
): RetailSignatureCheck {
  const keyId = singleHeader(headers['x-pm-access-key']);
  const timestamp = singleHeader(headers['x-pm-timestamp']);
  const signature = singleHeader(headers['x-pm-signature']);
  if (!keyId || !timestamp || !signature) {
    return reject('missing_header', 'X-PM-Access-Key, X-PM-Timestamp and X-PM-Signature are required');
  }
  const key = parts.retailKeys.get(keyId);
  if (!key) return reject('unknown_key', 'unknown access key');
  if (!MILLISECONDS.test(timestamp)) return reject('bad_timestamp', 'X-PM-Timestamp must be Unix time in milliseconds');
  if (Math.abs(Number(timestamp) - parts.clock.now()) > RETAIL_TIMESTAMP_WINDOW_MS) {
    return reject('stale_timestamp', 'X-PM-Timestamp is more than 30 seconds from server time');
  }
  if (!SIGNATURE.test(signature))
    return reject('malformed_signature', 'X-PM-Signature must be a base64 Ed25519 signature');
  const valid = verify(
    null,
    retailSigningInput(timestamp, method, pathname),
    key.publicKey,
    Buffer.from(signature, 'base64'),
  );
  return valid ? { ok: true, key } : reject('bad_signature', 'signature does not match the request');
}

function reject(reason: RetailRejection, message: string): RetailSignatureCheck {
  return { ok: false, reason, message };
}
