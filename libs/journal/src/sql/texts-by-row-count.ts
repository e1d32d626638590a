/** Batches of more rows than this have their statement text built each time. */
const ROW_COUNTS_KEPT = 64;

/**
 * A multi-row statement's text, built once per row count and then the same string each time. The
 * order path writes batches of one or two rows, so the text was rebuilt (placeholders and all) for
 * every write, and PgClient's statement-name lookup then hashed that fresh string anew; a string
 * seen before keeps its hash.
 */
export function textsByRowCount(build: (rows: number) => string): (rows: number) => string {
  const texts: string[] = [];
  return (rows) => {
    if (rows > ROW_COUNTS_KEPT) return build(rows);
    return (texts[rows] ??= build(rows));
  };
}
