/**
 * How many times a header came (rawHeaders: name, value, name, value, …). Node joins a repeated header it
 * does not know with ", ", so `headers` cannot tell two values from one that holds a comma.
 */
export function headerCount(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === name) count++;
  return count;
}
