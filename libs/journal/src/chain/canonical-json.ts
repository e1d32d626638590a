/**
 * JSON with object keys sorted at every depth: the same value always gives the same text (fingerprints, hashes).
 *
 * Written straight to text, with the output of `JSON.stringify` of a key-sorted copy (what this
 * function did before, kept in the spec as the reference): no copy of each object is built. As
 * there, integer-like keys come first in numeric order (a plain object enumerates them so), a
 * `__proto__` key is left out, and undefined, function and symbol values are left out of objects and
 * written `null` in arrays.
 */
export function canonicalJson(value: unknown): string {
  return write(value) as string;
}

const INDEX = /^(?:0|[1-9]\d*)$/;
/** A key that does not start with a digit is no index: most keys are settled without the regex. */
const isIndex = (key: string) => {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && INDEX.test(key) && Number(key) < 4_294_967_295;
};

/** Keys repeat from record to record (`seq`, `kind`, an order's fields): the JSON form of this many short ones is kept. */
const KEYS_KEPT = 1_024;
const LONGEST_KEY_KEPT = 64;
const keyJsons = new Map<string, string>();

function keyJson(key: string): string {
  let json = keyJsons.get(key);
  if (json === undefined) {
    json = JSON.stringify(key);
    if (keyJsons.size < KEYS_KEPT && key.length <= LONGEST_KEY_KEPT) keyJsons.set(key, json);
  }
  return json;
}

function write(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'bigint': // JSON.stringify throws on a bigint, as before
      return JSON.stringify(value);
    case 'object':
      return Array.isArray(value) ? writeArray(value) : writeObject(value as Record<string, unknown>);
    default:
      return undefined;
  }
}

function writeArray(items: readonly unknown[]): string {
  let text = '[';
  for (let i = 0; i < items.length; i++) text += (i === 0 ? '' : ',') + (write(items[i]) ?? 'null');
  return `${text}]`;
}

function writeObject(object: Record<string, unknown>): string {
  const keys = Object.keys(object).sort();
  const indices = keys.filter(isIndex);
  const ordered =
    indices.length === 0
      ? keys
      : [...indices.sort((a, b) => Number(a) - Number(b)), ...keys.filter((key) => !isIndex(key))];
  let text = '{';
  let first = true;
  for (const key of ordered) {
    if (key === '__proto__') continue;
    const item = write(object[key]);
    if (item === undefined) continue;
    text += `${first ? '' : ','}${keyJson(key)}:${item}`;
    first = false;
  }
  return `${text}}`;
}
