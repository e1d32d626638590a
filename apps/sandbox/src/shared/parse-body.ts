import type { z } from 'zod';

import { SurfaceError } from './surface-error.js';

/** Validates a sandbox-admin body; every issue is named with its path in one 400. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`);
  throw new SurfaceError(400, issues.join('; '), 'invalid_request');
}
