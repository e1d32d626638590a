import { IDENTITY_KEYWORD, IDENTITY_KINDS, type IdentityKind } from '@lib/core';

/** `*` stands for every item of an array. */
export type FieldPath = readonly string[];

export interface IdentityField {
  path: FieldPath;
  kind: IdentityKind;
}

interface JsonSchemaNode {
  properties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
  oneOf?: JsonSchemaNode[];
  allOf?: JsonSchemaNode[];
  [IDENTITY_KEYWORD]?: unknown;
}

const isKind = (value: unknown): value is IdentityKind => (IDENTITY_KINDS as readonly unknown[]).includes(value);

/**
 * Every field of a request schema marked `x-identity`, read from the JSON Schema the OpenAPI document
 * is built from: the declared list the identity binder works through, so a field marked in the lib's
 * schema is bound on every route that takes it, and cannot be missed by a route written later.
 */
export function identityFieldsOf(schema: object): IdentityField[] {
  const found: IdentityField[] = [];
  const visit = (node: JsonSchemaNode, path: FieldPath): void => {
    const kind = node[IDENTITY_KEYWORD];
    if (kind !== undefined) {
      if (!isKind(kind))
        throw new Error(`unknown ${IDENTITY_KEYWORD} "${String(kind)}" at ${path.join('.') || '(root)'}`);
      found.push({ path, kind });
      return;
    }
    for (const [name, child] of Object.entries(node.properties ?? {})) visit(child, [...path, name]);
    if (node.items) visit(node.items, [...path, '*']);
    for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) visit(branch, path);
  };
  visit(schema as JsonSchemaNode, []);
  return found;
}
