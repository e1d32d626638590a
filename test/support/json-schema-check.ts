/** The subset of JSON Schema the gateway's OpenAPI document uses for parameters and body properties. */
export interface PropertySchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  anyOf?: PropertySchema[];
  oneOf?: PropertySchema[];
  properties?: Record<string, PropertySchema>;
  required?: string[];
  items?: PropertySchema;
  additionalProperties?: unknown;
}

const typeOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;

/**
 * True when `value` surely breaks `schema` by the keywords above (a fuzz case must be invalid for
 * every reading of the schema, so anything this check cannot judge counts as possibly valid).
 */
export function surelyInvalid(schema: PropertySchema, value: unknown): boolean {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.every((alternative) => surelyInvalid(alternative, value));
  if (schema.enum && !schema.enum.some((allowed) => allowed === value)) return true;
  if ('const' in schema && schema.const !== value) return true;
  const types = schema.type === undefined ? undefined : [schema.type].flat();
  const actual = typeOf(value);
  if (types && !types.some((type) => type === actual || (type === 'number' && actual === 'integer'))) return true;
  if (typeof value === 'string') {
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) return true;
    if (schema.maxLength !== undefined && value.length > schema.maxLength) return true;
    if (schema.minLength !== undefined && value.length < schema.minLength) return true;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return true;
    if (schema.maximum !== undefined && value > schema.maximum) return true;
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return true;
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return true;
  }
  return false;
}

/** True when a query or path parameter's text surely breaks its schema, read as the gateway reads parameters (numbers and booleans from text). */
export function surelyInvalidText(schema: PropertySchema, text: string): boolean {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.every((alternative) => surelyInvalidText(alternative, text));
  const types = schema.type === undefined ? [] : [schema.type].flat();
  if (types.length === 1 && (types[0] === 'integer' || types[0] === 'number')) {
    const n = Number(text);
    if (text.trim() === '' || !Number.isFinite(n) || (types[0] === 'integer' && !Number.isInteger(n))) return true;
    return surelyInvalid({ ...schema, type: undefined }, n);
  }
  if (types.length === 1 && types[0] === 'boolean') return !['true', 'false', '1', '0'].includes(text);
  if (types.length === 1 && types[0] === 'array')
    return schema.items !== undefined && surelyInvalidText(schema.items, text);
  return surelyInvalid(schema, text);
}
