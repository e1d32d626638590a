import { type QueryValue, queryString } from '@lib/core';

/** A parsed query value: what the schemas yield. */
export type CanonicalValue = QueryValue;

/**
 * Lists whose order means something upstream: `orderBy=volume&orderBy=startDate` sorts differently
 * from the reverse, so those keep their order. Every other list is a set filter (ids, slugs,
 * categories), sorted and deduplicated so equivalent requests share one entry.
 */
const ORDERED_LISTS: ReadonlySet<string> = new Set(['orderBy']);

/**
 * The query string sent upstream, built from validated values: keys sorted, set-like repeated keys
 * sorted and deduplicated, absent values dropped. Two requests that mean the same get the same bytes,
 * so the cache key and the upstream request are one and the same.
 */
export function canonicalQuery(query: Readonly<Record<string, CanonicalValue>>): string {
  return queryString(query, Object.keys(query).sort(), (key, items) =>
    ORDERED_LISTS.has(key) ? items : [...new Set(items)].sort(),
  );
}

/** Path and canonical query, as requested upstream. */
export function upstreamTarget(path: string, query: Readonly<Record<string, CanonicalValue>>): string {
  const qs = canonicalQuery(query);
  return qs ? `${path}?${qs}` : path;
}

/**
 * The cache key: route name, then the upstream target. Starting with the route makes a purge by route
 * a prefix purge; the `|` cannot occur in a route name.
 */
export function canonicalKey(route: string, target: string): string {
  return `${route}|${target}`;
}
