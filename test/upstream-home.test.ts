import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

import ts from 'typescript';

// Issue #29 item 3: the upstream pipeline and the mapping of every upstream outcome to an error code
// live in one home (libs/upstream); the budget gate decides budget and maps nothing.
const HOME = 'libs/upstream/src';
const MAPPING_NAMES = [
  'okOrThrow',
  'upstreamError',
  'upstreamTransportError',
  'isLatencyReject',
  'upstreamThrottleOf',
  'parseBody',
  'grpcStatusError',
];

function productionFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'testing' ? [] : productionFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Every import of a file: the module and the names it takes from it. */
function importsOf(file: string): { module: string; names: string[] }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  return source.statements.filter(ts.isImportDeclaration).map((statement) => {
    const bindings = statement.importClause?.namedBindings;
    const names =
      bindings && ts.isNamedImports(bindings)
        ? bindings.elements.map((element) => (element.propertyName ?? element.name).text)
        : [];
    return { module: (statement.moduleSpecifier as ts.StringLiteral).text, names };
  });
}

const libFiles = readdirSync('libs').flatMap((lib) =>
  productionFiles(join('libs', lib, 'src')).map((file) => ({ lib, file })),
);
const sourceFiles = [...libFiles.map(({ file }) => file), ...productionFiles('apps/gateway/src')];

describe('the upstream pipeline and its mapping', () => {
  it('leave the budget gate deciding budget only: it imports no mapping and reads no upstream answer', () => {
    const gate = 'libs/ratelimit/src/gate/budget-gate.ts';
    const imported = importsOf(gate);
    expect(imported.filter(({ module }) => module === '@lib/upstream')).toEqual([]);
    expect(imported.flatMap(({ names }) => names).filter((name) => MAPPING_NAMES.includes(name))).toEqual([]);
    expect(imported.flatMap(({ names }) => names)).not.toContain('JsonReply');
    expect(readFileSync(gate, 'utf8')).not.toMatch(/ErrorCode\.UPSTREAM_/);
  });

  it('declare each outcome table once, in libs/upstream, and no status-to-code table anywhere else', () => {
    const tableOutside = /Record<\s*(number|GrpcStatus|string)\s*,\s*ErrorCode\s*>/;
    const declaresMapping = new RegExp(`export (function|const) (${MAPPING_NAMES.join('|')})\\b`);
    const outside = sourceFiles
      .filter((file) => !file.startsWith(HOME))
      .filter((file) => {
        const text = readFileSync(file, 'utf8');
        return (text.includes('ErrorCode.UPSTREAM_') && tableOutside.test(text)) || declaresMapping.test(text);
      });
    expect(outside).toEqual([]);
    const home = productionFiles(HOME)
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    for (const table of ['HTTP_STATUS_TABLE', 'GRPC_STATUS_TABLE', 'TRANSPORT_BY_ERROR_CODE'])
      expect(home).toContain(`export const ${table}`);
  });

  it('keep the libraries acyclic: the limiter and core below the pipeline, the surfaces above it', () => {
    const graph = new Map<string, Set<string>>();
    for (const { lib, file } of libFiles) {
      const uses = graph.get(lib) ?? new Set<string>();
      for (const { module } of importsOf(file))
        if (module.startsWith('@lib/') && module !== `@lib/${lib}`) uses.add(module.slice('@lib/'.length));
      graph.set(lib, uses);
    }
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...(graph.get(from) ?? [])].some(
        (next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))),
      );
    expect([...graph.keys()].filter((lib) => reaches(lib, lib))).toEqual([]);
    expect(['core', 'ratelimit', 'auth'].filter((lib) => reaches(lib, 'upstream'))).toEqual([]);
    expect(['exchange', 'retail', 'catalog'].filter((lib) => !graph.get(lib)?.has('upstream'))).toEqual([]);
  });
});
