import { type KeyObject, sign, verify } from 'node:crypto';

/**
 * Compact JWS (RFC 7515) by hand with node:crypto, written apart from the gateway's signing code
 * so that a misunderstanding shared by both sides cannot pass unnoticed.
 */
export interface CompactJwt {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** `<header>.<payload>` exactly as received: the bytes the signature covers. */
  signingInput: string;
  signature: Buffer;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;
// `alg: none` tokens end in an empty signature; they parse, so they can be refused for their algorithm.
const SIGNATURE_SEGMENT = /^[A-Za-z0-9_-]*$/;

/** The three parts decoded, or undefined when the token is not a well-formed compact JWS with JSON-object header and payload. */
export function parseCompactJwt(token: string): CompactJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts;
  if (!isBase64Url(header, SEGMENT) || !isBase64Url(payload, SEGMENT) || !isBase64Url(signature, SIGNATURE_SEGMENT))
    return undefined;
  const headerJson = decodeJsonObject(header);
  const payloadJson = decodeJsonObject(payload);
  if (!headerJson || !payloadJson) return undefined;
  return {
    header: headerJson,
    payload: payloadJson,
    signingInput: `${header}.${payload}`,
    signature: Buffer.from(signature, 'base64url'),
  };
}

/** RS256 = RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3); false for any key that is not RSA. */
export function verifyRs256(jwt: CompactJwt, key: KeyObject): boolean {
  if (key.asymmetricKeyType !== 'rsa' || jwt.signature.length === 0) return false;
  try {
    return verify('RSA-SHA256', Buffer.from(jwt.signingInput, 'ascii'), key, jwt.signature);
  } catch {
    return false;
  }
}

export function signRs256(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  privateKey: KeyObject,
): string {
  const signingInput = `${encodeJson({ ...header, alg: 'RS256' })}.${encodeJson(payload)}`;
  return `${signingInput}.${sign('RSA-SHA256', Buffer.from(signingInput, 'ascii'), privateKey).toString('base64url')}`;
}

function isBase64Url(segment: string, alphabet: RegExp): boolean {
  // A base64url string never has a length of 4n+1 (RFC 4648 §5, unpadded).
  return alphabet.test(segment) && segment.length % 4 !== 1;
}

function decodeJsonObject(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function encodeJson(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}
