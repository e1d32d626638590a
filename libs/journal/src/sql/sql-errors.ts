/** The SQLSTATE of a PostgreSQL error (node-postgres and the embedded client both carry it as `code`). */
function sqlStateOf(error: unknown): string | undefined {
  const { code } = (error ?? {}) as { code?: unknown };
  return typeof code === 'string' && code.length === 5 ? code : undefined;
}

/** PostgreSQL's unique_violation (23505): another writer holds this key (the journal: this `seq`). */
export function isUniqueViolation(error: unknown): boolean {
  const { message } = (error ?? {}) as { message?: unknown };
  return sqlStateOf(error) === '23505' || (typeof message === 'string' && message.includes('duplicate key value'));
}

/**
 * The server refused a value of the statement, not the connection or the statement's shape: a data
 * exception (class 22: a NUL byte or an invalid byte sequence in a text, a value too long), an integrity
 * violation other than a unique one (class 23), or a program limit (class 54: an index row too large).
 * Such a refusal is the value's own: the other rows of a batched statement are written without it.
 */
export function isValueRefusal(error: unknown): boolean {
  const state = sqlStateOf(error);
  if (state === undefined || state === '23505') return false;
  return state.startsWith('22') || state.startsWith('23') || state.startsWith('54');
}

/**
 * Runs a batch's items in one statement (`run` settles the items it wrote). When the server refuses a
 * value of it, each half is run again, and so on down: one refused value costs about log2(n) more
 * statements and fails only its own item. Any other error (a dead or slow server) fails at once every
 * item not yet written: they are not asked again one by one.
 */
export async function runSplittingRefusals<T>(
  items: readonly T[],
  run: (part: readonly T[]) => Promise<void>,
  fail: (item: T, error: unknown) => void,
): Promise<void> {
  let stop: { error: unknown } | undefined;
  const attempt = async (part: readonly T[]): Promise<void> => {
    if (stop) {
      for (const item of part) fail(item, stop.error);
      return;
    }
    try {
      await run(part);
    } catch (error) {
      if (part.length > 1 && isValueRefusal(error)) {
        const half = Math.ceil(part.length / 2);
        await attempt(part.slice(0, half));
        await attempt(part.slice(half));
        return;
      }
      if (!isValueRefusal(error)) stop = { error };
      for (const item of part) fail(item, error);
    }
  };
  await attempt(items);
}
