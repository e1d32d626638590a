import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ESLint } from 'eslint';

// architecture.md: the sandbox imports nothing from libs/* so that a misreading of the spec in the
// gateway cannot be mirrored by the simulator that judges it. The lint rule enforces it; this test
// proves the rule bites and that the tree obeys it.

const FORBIDDEN = /from\s+'(@lib\/[^']*|[^']*\/libs\/[^']*)'/;
const IMPORT_RULE = 'no-restricted-imports';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

async function ruleMessages(code: string, filePath: string): Promise<string[]> {
  const [result] = await new ESLint().lintText(code, { filePath });
  return result.messages.filter((message) => message.ruleId === IMPORT_RULE).map((message) => message.message);
}

describe('sandbox import boundary', () => {
  it('fails lint on a deliberate import of a gateway lib from the sandbox, by alias or by path', async () => {
    const byAlias = await ruleMessages(
      "import { OrderRequestSchema } from '@lib/exchange';\nexport const s = OrderRequestSchema;\n",
      'apps/sandbox/src/exchange/deliberate.ts',
    );
    const byPath = await ruleMessages(
      "import { x } from '../../../../../libs/core/src/index.js';\nexport const y = x;\n",
      'apps/sandbox/src/exchange/grpc/wire/deliberate.ts',
    );
    expect(byAlias).toEqual([expect.stringContaining('The sandbox imports nothing from libs/*')]);
    expect(byPath).toEqual([expect.stringContaining('The sandbox imports nothing from libs/*')]);
  });

  it('lets the gateway import the same lib (the rule is the sandbox’s alone)', async () => {
    expect(
      await ruleMessages(
        "import { OrderRequestSchema } from '@lib/exchange';\nexport const s = OrderRequestSchema;\n",
        'apps/gateway/src/deliberate.ts',
      ),
    ).toEqual([]);
  });

  it('finds no import of libs/* anywhere in apps/sandbox', () => {
    const offenders = sourceFiles('apps/sandbox').filter((file) => FORBIDDEN.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
