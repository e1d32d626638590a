import type { z } from 'zod';

import { SurfaceError } from '../shared/surface-error.js';

/** Validates a query or path with the gateway's own schema for the route; a 400 names every bad field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'query' | 'path'): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issues = result.error.issues.map(
    (issue) => `${[where, ...issue.path.map(String)].join('.')}: ${issue.message}`,
  );
  throw new SurfaceError(400, issues.join('; '));
}
