import type { z } from 'zod';

import type { BucketName, LimitsConfig, TeamConfig } from './limits.types.js';

interface BucketConfigSections {
  limits: Pick<LimitsConfig, 'buckets'>;
  teams: readonly Pick<TeamConfig, 'shares'>[];
}

/**
 * The config check the app adds to its schema once it knows every surface's declarations: an override
 * must name a declared bucket, and a team share a declared bucket, a dotted prefix of one, or `*`.
 */
export function declaredBucketsCheck(
  names: readonly BucketName[],
): (config: BucketConfigSections, ctx: z.RefinementCtx) => void {
  const known = new Set(names);
  const shareKeys = new Set([
    '*',
    ...names.flatMap((name) => name.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.'))),
  ]);
  return (config, ctx) => {
    for (const name of Object.keys(config.limits.buckets)) {
      if (!known.has(name))
        ctx.addIssue({ code: 'custom', path: ['limits', 'buckets'], message: `"${name}" is not a declared bucket` });
    }
    config.teams.forEach((team, i) => {
      for (const key of Object.keys(team.shares ?? {})) {
        if (!shareKeys.has(key))
          ctx.addIssue({
            code: 'custom',
            path: ['teams', i, 'shares', key],
            message: `"${key}" is not a bucket, a bucket prefix or *`,
          });
      }
    });
  };
}
