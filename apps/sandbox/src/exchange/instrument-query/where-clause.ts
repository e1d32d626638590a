/**
 * The subset of SQL WHERE that upstream-facts documents for the instrument filter: `column = 'text'`
 * and `column LIKE 'pattern'` (with `%`) joined by AND, over a fixed set of columns. Anything else
 * (OR, parentheses, other operators or columns, unquoted values) is refused rather than guessed at.
 */
export const WHERE_COLUMNS = [
  'symbol',
  'state',
  'event_series',
  'event_category',
  'clearing_sym',
  'clearing_house',
  'product_id',
] as const;
export type WhereColumn = (typeof WHERE_COLUMNS)[number];

export interface WhereCondition {
  column: WhereColumn;
  operator: '=' | 'LIKE';
  value: string;
}

export class WhereClauseError extends Error {
  constructor(message: string) {
    super(`whereClause: ${message}`);
    this.name = 'WhereClauseError';
  }
}

type Token =
  | { kind: 'word'; text: string; at: number }
  | { kind: 'string'; text: string; at: number }
  | { kind: 'equals'; at: number };

const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const char = source[at];
    if (/\s/.test(char)) {
      at++;
    } else if (char === '=') {
      tokens.push({ kind: 'equals', at: at++ });
    } else if (char === "'") {
      const start = at;
      let text = '';
      for (at++; ; at++) {
        if (at >= source.length) throw new WhereClauseError(`unterminated string starting at ${start}`);
        if (source[at] !== "'") text += source[at];
        else if (source[at + 1] === "'")
          text += source[++at]; // '' is an escaped quote
        else break;
      }
      tokens.push({ kind: 'string', text, at: start });
      at++;
    } else {
      WORD.lastIndex = at;
      const word = WORD.exec(source);
      if (!word) throw new WhereClauseError(`unexpected "${char}" at ${at}`);
      tokens.push({ kind: 'word', text: word[0], at });
      at += word[0].length;
    }
  }
  return tokens;
}

function isColumn(name: string): name is WhereColumn {
  return (WHERE_COLUMNS as readonly string[]).includes(name);
}

/** Parses the clause into conditions that must all hold; throws WhereClauseError naming what is wrong. */
export function parseWhereClause(source: string): WhereCondition[] {
  const tokens = tokenize(source);
  if (tokens.length === 0) return [];
  const conditions: WhereCondition[] = [];
  let i = 0;
  const describe = (token: Token | undefined) => (token ? `at ${token.at}` : 'at the end');
  for (;;) {
    const [column, operator, value] = [tokens[i], tokens[i + 1], tokens[i + 2]];
    if (column?.kind !== 'word' || !isColumn(column.text.toLowerCase())) {
      throw new WhereClauseError(`expected a column (${WHERE_COLUMNS.join(', ')}) ${describe(column)}`);
    }
    const op =
      operator?.kind === 'equals'
        ? '='
        : operator?.kind === 'word' && operator.text.toUpperCase() === 'LIKE'
          ? 'LIKE'
          : undefined;
    if (!op) throw new WhereClauseError(`expected = or LIKE ${describe(operator)}`);
    if (value?.kind !== 'string') throw new WhereClauseError(`expected a quoted string ${describe(value)}`);
    conditions.push({ column: column.text.toLowerCase() as WhereColumn, operator: op, value: value.text });
    i += 3;
    if (i === tokens.length) return conditions;
    const joiner = tokens[i];
    if (joiner.kind !== 'word' || joiner.text.toUpperCase() !== 'AND')
      throw new WhereClauseError(`expected AND ${describe(joiner)}`);
    i++;
  }
}

/** SQL LIKE: `%` any run, `_` one character, everything else literal; case-sensitive, whole value. */
export function likeMatcher(pattern: string): (value: string) => boolean {
  const source = [...pattern]
    .map((c) => (c === '%' ? '.*' : c === '_' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const regex = new RegExp(`^${source}$`, 's');
  return (value) => regex.test(value);
}
