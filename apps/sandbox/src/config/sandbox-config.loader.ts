import { readFileSync } from 'node:fs';

import { parse as parseYaml } from 'yaml';

import { type SandboxConfig, SandboxConfigSchema } from './sandbox-config.schema.js';

/**
 * Reads and validates the sandbox's YAML config; every problem is listed with its key path. The
 * sandbox's own loader: it imports nothing from libs/* (architecture.md).
 */
export function loadSandboxConfig(
  path: string,
): { ok: true; config: SandboxConfig } | { ok: false; problems: string[] } {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8')) ?? {};
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      problems: [code ? `cannot read file: ${code}` : `not valid YAML: ${(error as Error).message.split('\n')[0]}`],
    };
  }
  const result = SandboxConfigSchema.safeParse(raw);
  if (result.success) return { ok: true, config: result.data };
  return {
    ok: false,
    problems: result.error.issues.map(
      (issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`,
    ),
  };
}
