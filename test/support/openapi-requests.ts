import type { Json } from './stack.js';

/** Reading the gateway's OpenAPI document (`/docs/json`) to build requests for every route it lists. */

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export interface Operation {
  method: string;
  path: string;
  parameters: { name: string; in: string; required?: boolean; schema?: Json; example?: unknown }[];
  body?: Json;
}

export interface Place {
  where: 'header' | 'body' | 'path' | 'query';
  /** Body: the field path (`*` for every array item); else the parameter name. */
  name: string;
  kind: string;
}

/** Every operation of the exchange and retail surfaces, with its parameters and JSON body schema. */
export function operationsOf(doc: Json): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    if (!path.startsWith('/exchange/') && !path.startsWith('/retail/')) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      found.push({
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return found;
}

/** Every `x-identity` mark under a JSON Schema, with its field path. */
export function markedFields(schema: Json, at: string[] = []): Place[] {
  if (!schema || typeof schema !== 'object') return [];
  if (schema['x-identity']) return [{ where: 'body', name: at.join('.'), kind: schema['x-identity'] }];
  const nested = Object.entries<Json>(schema.properties ?? {}).flatMap(([key, child]) =>
    markedFields(child, [...at, key]),
  );
  const items = schema.items ? markedFields(schema.items, [...at, '*']) : [];
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].flatMap((branch: Json) =>
    markedFields(branch, at),
  );
  return [...nested, ...items, ...branches];
}

/** Every property name anywhere in a body schema, for the guard that an identity-looking field is marked. */
export function propertyNames(schema: Json): { name: string; marked: boolean }[] {
  if (!schema || typeof schema !== 'object') return [];
  const own = Object.entries<Json>(schema.properties ?? {}).flatMap(([name, child]) => [
    { name, marked: Boolean(child?.['x-identity']) },
    ...propertyNames(child),
  ]);
  return [
    ...own,
    ...propertyNames(schema.items),
    ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].flatMap(propertyNames),
  ];
}

/** A value the schema takes: its example, its first enum value or default, else a plain one of its type. */
export function sample(schema: Json): unknown {
  if (!schema) return 'x';
  if (schema.examples?.length) return structuredClone(schema.examples[0]);
  if (schema.example !== undefined) return structuredClone(schema.example);
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  switch (schema.type) {
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((key: string) => [key, sample(schema.properties?.[key])]));
    case 'array':
      return [sample(schema.items)];
    case 'integer':
    case 'number':
      return Math.max(1, schema.minimum ?? 1);
    case 'boolean':
      return false;
    default:
      return 'x';
  }
}

/** Sets `value` at a field path in a copy of `body`; `*` means the last item of the array (so the index is named). */
export function withField(body: unknown, path: string[], value: unknown): unknown {
  const copy = structuredClone(body ?? {}) as Record<string, Json>;
  let node: Json = copy;
  path.forEach((key, i) => {
    const last = i === path.length - 1;
    const index = key === '*' ? Math.max(0, node.length - 1) : key;
    if (last) node[index] = value;
    else {
      if (node[index] === undefined) node[index] = path[i + 1] === '*' ? [{}] : {};
      node = node[index];
    }
  });
  return copy;
}
