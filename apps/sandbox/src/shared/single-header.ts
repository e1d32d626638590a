/** One header value, or undefined when absent, empty or repeated: a repeated credential header is ambiguous, so neither copy is trusted. */
export function singleHeader(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
