// The limiter as it was at BASELINE_COMMIT, built from git for `npm run bench ratelimit` to measure
// in the same run as today's: its libs/core and libs/ratelimit sources (git archive, nothing else of
// that commit) compiled once into a directory under the OS temp dir, and loaded from there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The commit whose limiter decided 133k/s (one bucket) and 109k/s (two) in issue 28. */
export const BASELINE_COMMIT = 'ee790c3';

/** The parts of that commit's @lib/core and @lib/ratelimit the bench calls (same shapes as today's). */
export interface BaselineLimiterModules {
  commit: string;
  core: typeof import('@lib/core');
  ratelimit: typeof import('@lib/ratelimit');
}

const TSCONFIG = {
  extends: './tsconfig.json',
  compilerOptions: { types: ['node'], sourceMap: false, outDir: 'dist' },
  include: ['libs/ratelimit/src/index.ts'],
  exclude: ['**/*.spec.ts'],
  'tsc-alias': { resolveFullPaths: true },
};

/** Builds (once per commit: the directory is reused) and imports the baseline's limiter. */
export async function loadBaselineLimiter(repoDir = process.cwd()): Promise<BaselineLimiterModules> {
  const commit = execFileSync('git', ['rev-parse', '--short', BASELINE_COMMIT], {
    cwd: repoDir,
    encoding: 'utf8',
  }).trim();
  const dir = join(tmpdir(), `pmgw-limiter-${commit}`);
  const entry = (lib: string) => join(dir, 'dist', 'libs', lib, 'src', 'index.js');
  // The build is reused only where its node_modules link still resolves (it names the checkout that built it).
  if (!existsSync(entry('ratelimit')) || !existsSync(join(dir, 'node_modules', '@nestjs', 'common'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const archive = execFileSync(
      'git',
      ['archive', commit, 'libs/core', 'libs/ratelimit', 'tsconfig.json', 'package.json'],
      { cwd: repoDir, maxBuffer: 64 * 2 ** 20 },
    );
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    symlinkSync(join(repoDir, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'tsconfig.baseline.json'), JSON.stringify(TSCONFIG));
    const bin = (name: string) => join(repoDir, 'node_modules', '.bin', name);
    execFileSync(bin('tsc'), ['-p', 'tsconfig.baseline.json'], { cwd: dir, stdio: 'inherit' });
    execFileSync(bin('tsc-alias'), ['-p', 'tsconfig.baseline.json'], { cwd: dir, stdio: 'inherit' });
  }
  const core = (await import(pathToFileURL(entry('core')).href)) as BaselineLimiterModules['core'];
  const ratelimit = (await import(pathToFileURL(entry('ratelimit')).href)) as BaselineLimiterModules['ratelimit'];
  return { commit, core, ratelimit };
}
