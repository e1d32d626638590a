import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { findImportCycles } from './support/import-cycles.js';

// Issue #29: the sandbox reads one way, from its composition root (src/root) through the surfaces to the engine.
describe('sandbox import graph', () => {
  it('has no import cycle in apps/sandbox', () => {
    expect(findImportCycles('apps/sandbox/src')).toEqual([]);
  });

  it('has no import cycle in libs/ or apps/gateway', () => {
    expect({ libs: findImportCycles('libs'), gateway: findImportCycles('apps/gateway/src') }).toEqual({
      libs: [],
      gateway: [],
    });
  });

  it('finds a cycle through a type-only import and a folder index, as the sandbox once had', () => {
    const root = mkdtempSync(join(tmpdir(), 'import-cycles-'));
    try {
      mkdirSync(join(root, 'engine'));
      writeFileSync(join(root, 'engine/index.ts'), "export { a } from './a.js';\n");
      writeFileSync(join(root, 'engine/a.ts'), "import type { B } from '../b.js';\nexport const a = (b: B) => b;\n");
      writeFileSync(join(root, 'b.ts'), "import { a } from './engine/index.js';\nexport type B = typeof a;\n");
      writeFileSync(join(root, 'leaf.ts'), "import { a } from './engine/index.js';\nexport const leaf = a;\n");
      expect(findImportCycles(root)).toEqual([['b.ts', 'engine/a.ts', 'engine/index.ts']]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
