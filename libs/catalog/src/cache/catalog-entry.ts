import { createHash } from 'node:crypto';

/** One cached upstream answer: the body bytes exactly as they came, with what is needed to serve them. */
export interface CatalogEntry {
  /** 200, or 404: an unknown id is an answer too, and caching it spares the upstream budget. */
  status: number;
  body: string;
  contentType: string;
  /** Strong validator: a hash of the body, so equal bytes on any instance give equal tags. */
  etag: string;
  /** Epoch ms the upstream answered; Age counts from here. */
  storedAt: number;
  ttlMs: number;
}

export function entryOf(
  status: number,
  body: string,
  contentType: string,
  storedAt: number,
  ttlMs: number,
): CatalogEntry {
  return { status, body, contentType, etag: strongEtag(body), storedAt, ttlMs };
}

export function strongEtag(body: string): string {
  return `"${createHash('sha256').update(body, 'utf8').digest('base64url').slice(0, 22)}"`;
}

/**
 * RFC 9110 §13.1.2: If-None-Match uses weak comparison, so `W/"x"` matches `"x"`; `*` matches any
 * stored representation.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

const SEPARATOR = '\n';

/** Redis form: one JSON line of metadata, then the body untouched, so one GET returns both. */
export function encodeEntry(entry: CatalogEntry): string {
  const { body, ...meta } = entry;
  return JSON.stringify(meta) + SEPARATOR + body;
}

export function decodeEntry(raw: string): CatalogEntry | undefined {
  const at = raw.indexOf(SEPARATOR);
  if (at < 0) return undefined;
  try {
    const meta = JSON.parse(raw.slice(0, at)) as Omit<CatalogEntry, 'body'>;
    if (typeof meta.storedAt !== 'number' || typeof meta.etag !== 'string') return undefined;
    return { ...meta, body: raw.slice(at + 1) };
  } catch {
    return undefined;
  }
}
