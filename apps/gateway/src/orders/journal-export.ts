import type { JournalRecord, OrderJournal } from '@lib/journal';

const CSV_COLUMNS = ['seq', 'at', 'kind', 'clordId', 'orderId', 'clientId', 'team', 'data', 'hash'] as const;

/** A cell a spreadsheet would run as a formula (a client's clordId `=HYPERLINK(...)`): written after a `'`, as text (OWASP CSV injection). */
const FORMULA = /^[=+\-@\t\r]/;

function csvCell(value: unknown): string {
  const raw = value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  const text = FORMULA.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const csvHeader = (): string => `${CSV_COLUMNS.join(',')}\n`;
export const csvLine = (record: JournalRecord): string =>
  `${CSV_COLUMNS.map((column) => csvCell(record[column])).join(',')}\n`;
export const jsonLine = (record: JournalRecord): string => `${JSON.stringify(record)}\n`;

/** Every record of a time range, read page by page (a range of any size is never held whole); the first chunk comes after the first read. */
export async function* exportRange(
  journal: OrderJournal,
  from: Date,
  to: Date,
  format: 'jsonl' | 'csv',
): AsyncGenerator<string> {
  let after = 0;
  // The CSV header follows the first read, so that the first chunk tells whether the journal can be read at all.
  let header = format === 'csv';
  for (;;) {
    const page = await journal.range(from, to, after);
    if (header) yield csvHeader();
    header = false;
    if (page.length === 0) return;
    yield page.map(format === 'csv' ? csvLine : jsonLine).join('');
    after = page[page.length - 1]!.seq;
  }
}
