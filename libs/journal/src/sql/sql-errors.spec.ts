import { runSplittingRefusals } from './sql-errors.js';

/** A server that refuses a statement holding a `bad` item (22021, as a NUL byte), and counts statements. */
function server(options: { deadAfter?: number } = {}) {
  const statements: string[][] = [];
  const written: string[] = [];
  const run = async (part: readonly string[]) => {
    statements.push([...part]);
    if (options.deadAfter !== undefined && statements.length > options.deadAfter)
      throw Object.assign(new Error('Connection terminated'), { code: undefined });
    if (part.some((item) => item.startsWith('bad')))
      throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
    written.push(...part);
  };
  return { run, statements, written };
}

describe(runSplittingRefusals.name, () => {
  it('fails only the item the server refuses, in about log2(n) more statements', async () => {
    const db = server();
    const failed: string[] = [];
    const items = ['a', 'b', 'c', 'bad', 'e', 'f', 'g', 'h'];
    await runSplittingRefusals(items, db.run, (item) => failed.push(item));
    expect(failed).toEqual(['bad']);
    expect([...db.written].sort()).toEqual(['a', 'b', 'c', 'e', 'f', 'g', 'h']);
    expect(db.statements.length).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(items.length)));
  });

  it('after another error (the server gone) fails every item left at once, asking nothing more', async () => {
    const db = server({ deadAfter: 1 });
    const failed: { item: string; message: string }[] = [];
    await runSplittingRefusals(['a', 'bad', 'c', 'd'], db.run, (item, error) =>
      failed.push({ item, message: (error as Error).message }),
    );
    expect(db.statements).toHaveLength(2); // the batch, then its first half: the server is gone
    expect(db.written).toEqual([]);
    expect(failed.map((f) => f.item).sort()).toEqual(['a', 'bad', 'c', 'd']);
    expect(failed.every((f) => f.message === 'Connection terminated')).toBe(true);
  });
});
