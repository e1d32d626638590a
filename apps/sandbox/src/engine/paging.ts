import { EngineError, EngineErrorCode } from './engine.error.js';

export interface PageQuery {
  /** Default 100, at most 1000 (the spec gives no bounds for searches; these mirror the instrument list). */
  pageSize?: number;
  /** Opaque cursor from a previous answer's nextPageToken. */
  pageToken?: string;
}

export interface Page<T> {
  items: T[];
  /** Empty when there is nothing more. */
  nextPageToken: string;
}

const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;

/**
 * One page of the items `keep` selects, oldest first. The token holds the position to resume from
 * plus the kind of list, so a token from the trade list is refused by the order search.
 */
export function pageOf<T>(items: readonly T[], query: PageQuery, kind: string, keep: (item: T) => boolean): Page<T> {
  const size = Math.min(query.pageSize && query.pageSize > 0 ? query.pageSize : DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const page: T[] = [];
  for (let at = decodeToken(query.pageToken, kind, items.length); at < items.length; at++) {
    if (!keep(items[at])) continue;
    if (page.length === size) return { items: page, nextPageToken: encodeToken(kind, at) };
    page.push(items[at]);
  }
  return { items: page, nextPageToken: '' };
}

function encodeToken(kind: string, at: number): string {
  return Buffer.from(`${kind}:${at}`).toString('base64url');
}

function decodeToken(token: string | undefined, kind: string, length: number): number {
  if (!token) return 0;
  const text = Buffer.from(token, 'base64url').toString();
  const split = text.lastIndexOf(':');
  const [tokenKind, at] = [text.slice(0, split), Number(text.slice(split + 1))];
  if (tokenKind !== kind || !Number.isSafeInteger(at) || at < 0 || at > length) {
    throw new EngineError(EngineErrorCode.INVALID_PAGE_TOKEN, 'pageToken is not one this list issued');
  }
  return at;
}
