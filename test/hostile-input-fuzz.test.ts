import fc from 'fast-check';

import { type PropertySchema, surelyInvalid, surelyInvalidText } from './support/json-schema-check.js';
import { type RawResponse, rawRequest } from './support/raw-http.js';
import { type Stack, startStack } from './support/stack.js';

/** Sandbox counters that move when a request reaches an upstream (tokens and streams are not requests of a route). */
const UPSTREAM_COUNTERS = [
  'exchange.calls.',
  'exchange.throttled.',
  'retail.route.',
  'retail.accepted.',
  'retail.rejected.',
  'retail.throttled.',
  'retail.limited.',
  'catalog.',
];

interface Parameter {
  name: string;
  in: string;
  schema: PropertySchema;
}
interface Operation {
  method: string;
  path: string;
  params: Parameter[];
  body?: PropertySchema;
}
interface Case {
  operation: Operation;
  path: string;
  body?: string;
  /** The hostile text sent, to check the answer echoes at most 100 characters of it. */
  echoed?: string;
}

const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const HUGE = 'x'.repeat(100_000);

/** Body values of every wrong kind; each case keeps only those its field's schema surely refuses. */
const FIELD_VALUES: unknown[] = [
  -1,
  0,
  -5.5,
  1.5,
  -1e308,
  1e308,
  2 ** 64,
  2 ** 53 + 1,
  '-1',
  '0',
  '99999999999999999999',
  '1e308',
  '',
  '\u0000',
  'a\u0000b',
  '💥\u202e\uFFFF',
  '../..',
  HUGE,
  true,
  null,
  {},
  [],
  [[[[[[[[]]]]]]]],
  { $gt: '' },
];
/** Whole bodies that no route's object schema accepts, as raw text (so a 5,000-deep nesting is sent as such). */
const WHOLE_BODIES = [
  '[]',
  '"text"',
  '123',
  'null',
  'true',
  deepArray(5_000),
  deepObject(5_000),
  deepArray(40),
  '{"a":',
  '{"a":"\u0000',
  `"${HUGE}"`,
  '\u0000',
];
/** Query and path texts: wrong types, overflowing and negative numbers, NUL, unicode, huge. */
const TEXTS = [
  '',
  '-1',
  '0',
  '1.5',
  '-0',
  '99999999999999999999999',
  '1e400',
  'NaN',
  'Infinity',
  '\u0000',
  'a\u0000b',
  '💥',
  '\u202e',
  'x'.repeat(6_000),
  'true',
  '../x',
  '{}',
  '[]',
];
/** Raw path segments the gateway must refuse whatever the parameter's schema: dot segments and broken escapes. */
const HOSTILE_SEGMENTS = [
  '..',
  '.',
  '%2e%2e',
  '%2E',
  '.%2e',
  '..%2F..',
  '..%5c',
  '%00',
  'a%00b',
  '%ZZ',
  '%',
  '%c0%ae%c0%ae',
];

async function operationsOf(stack: Stack): Promise<Operation[]> {
  const document = (await (await fetch(`${stack.url}/docs/json`)).json()) as {
    paths: Record<
      string,
      Record<
        string,
        { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: PropertySchema }> } }
      >
    >;
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const params = (operation.parameters ?? []).filter((p) => p.in === 'path' || p.in === 'query');
      operations.push({
        method: method.toUpperCase(),
        path,
        params,
        body: operation.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return operations;
}

/** A stand-in for each path parameter the case leaves alone: shaped like the parameter wants, where the schema says. */
function fillPath(operation: Operation, replace?: { name: string; raw: string }): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (replace?.name === name) return replace.raw;
    const schema = operation.params.find((p) => p.name === name)?.schema;
    return schema?.enum
      ? String(schema.enum[0])
      : schema?.type === 'integer' || schema?.type === 'number'
        ? '1'
        : 'SAFE1';
  });
}

/** Every way to make one operation's request invalid, as fast-check arbitraries of cases. */
function casesOf(operation: Operation): fc.Arbitrary<Case>[] {
  const arbitraries: fc.Arbitrary<Case>[] = [];
  const bodyOf = (text: string) => (operation.method === 'GET' || operation.method === 'DELETE' ? undefined : text);
  for (const param of operation.params.filter((p) => p.in === 'path')) {
    const invalid = TEXTS.filter((text) => surelyInvalidText(param.schema, text)).map((text) =>
      encodeURIComponent(text),
    );
    arbitraries.push(
      fc.constantFrom(...HOSTILE_SEGMENTS, ...invalid).map((raw) => ({
        operation,
        path: fillPath(operation, { name: param.name, raw }),
        body: bodyOf('{}'),
        echoed: raw,
      })),
    );
  }
  for (const param of operation.params.filter((p) => p.in === 'query')) {
    const invalid = TEXTS.filter((text) => surelyInvalidText(param.schema, text));
    if (invalid.length === 0) continue;
    arbitraries.push(
      fc.constantFrom(...invalid).map((text) => ({
        operation,
        path: `${fillPath(operation)}?${param.name}=${encodeURIComponent(text)}`,
        body: bodyOf('{}'),
        echoed: text,
      })),
    );
  }
  const body = operation.body;
  if (body && bodyOf('{}') !== undefined) {
    arbitraries.push(
      fc
        .constantFrom(...WHOLE_BODIES)
        .map((text) => ({ operation, path: fillPath(operation), body: text, echoed: text })),
    );
    if (body.additionalProperties === false) {
      // Unknown keys of a strict body, named by the client: long, unicode, NUL.
      const names = ['k'.repeat(5_000), `${'💥'.repeat(200)}`, 'a\u0000b', '__proto__', 'constructor'];
      arbitraries.push(
        fc
          .constantFrom(...names)
          .map((name) => ({ operation, path: fillPath(operation), body: `{${JSON.stringify(name)}:1}`, echoed: name })),
      );
    }
    for (const [name, schema] of Object.entries(body.properties ?? {})) {
      const invalid = FIELD_VALUES.filter((value) => surelyInvalid(schema, value));
      if (invalid.length === 0) continue;
      arbitraries.push(
        fc.tuple(fc.constantFrom(...invalid), fc.integer({ min: 0, max: 60 })).map(([value, depth]) => {
          // The field's wrong value, nested `depth` levels down the field itself (arrays of it).
          const nested = JSON.stringify(value);
          return {
            operation,
            path: fillPath(operation),
            body: `{${JSON.stringify(name)}:${'['.repeat(depth)}${nested}${']'.repeat(depth)}}`,
            echoed: typeof value === 'string' ? value : nested,
          };
        }),
      );
    }
  }
  return arbitraries;
}

function upstreamCalls(stack: Stack): number {
  return Object.entries(stack.sandbox.state.counterSnapshot())
    .filter(([name]) => UPSTREAM_COUNTERS.some((prefix) => name.startsWith(prefix)))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** What a hostile case must get: a 4xx problem with a request id, at most 100 characters of the input echoed, nothing sent upstream. */
function verdict(kase: Case, res: RawResponse, upstream: number): Record<string, unknown> {
  const requestId = res.headers['x-request-id'];
  let problem: { status?: unknown; requestId?: unknown } = {};
  try {
    problem = JSON.parse(res.text) as typeof problem;
  } catch {
    // not JSON: the content-type check below names it
  }
  const echoed =
    kase.echoed !== undefined &&
    kase.echoed.length > 100 &&
    [0, 1].some((i) => res.text.includes(kase.echoed!.slice(i * 50, i * 50 + 101)));
  return {
    clientError: res.status >= 400 && res.status < 500,
    problemJson: String(res.headers['content-type']).startsWith('application/problem+json'),
    requestId:
      typeof requestId === 'string' &&
      requestId !== '' &&
      problem.requestId === requestId &&
      problem.status === res.status,
    echoesAtMost100: !echoed,
    upstreamCalls: upstream,
  };
}

const GOOD = { clientError: true, problemJson: true, requestId: true, echoesAtMost100: true, upstreamCalls: 0 };

describe('hostile input fuzz (every route of /docs/json)', () => {
  let stack: Stack;
  let operations: Operation[];

  beforeAll(async () => {
    stack = await startStack();
    operations = await operationsOf(stack);
  });
  afterAll(() => stack.close());

  it('answers invalid bodies, queries and parameters with a 4xx problem, sends nothing upstream, and stays ready', async () => {
    const arbitraries = operations.flatMap(casesOf);
    // Enough routes to mean the document was read: a route added later is fuzzed without editing this test.
    expect(operations.length).toBeGreaterThan(30);
    const headers = { authorization: `Bearer ${stack.keys.all}`, 'content-type': 'application/json' };
    await fc.assert(
      fc.asyncProperty(fc.oneof(...arbitraries), async (kase) => {
        const before = upstreamCalls(stack);
        const res = await rawRequest(stack.url, kase.operation.method, kase.path, headers, kase.body);
        const found = verdict(kase, res, upstreamCalls(stack) - before);
        expect({
          request: `${kase.operation.method} ${kase.path.slice(0, 120)} ${kase.body?.slice(0, 80) ?? ''}`,
          status: res.status,
          ...found,
        }).toEqual({
          request: expect.any(String),
          status: res.status,
          ...GOOD,
        });
      }),
      { seed: 14_2026, numRuns: 400, endOnFailure: true },
    );
    expect((await fetch(`${stack.url}/health/ready`)).status).toBe(200);
  }, 60_000);
});
