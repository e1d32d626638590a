import pg from 'pg';

import type { SqlClient, SqlQuery, SqlRow } from './sql-client.js';

export interface PgClientOptions {
  url: string;
  poolSize: number;
  /** Connecting and each statement are bounded by this: an unreachable server fails fast. */
  timeoutMs: number;
}

/** How many distinct statement texts are prepared by name (per connection); further texts go unnamed. */
const MAX_NAMED_STATEMENTS = 64;

/** A real PostgreSQL server through a pool (node-postgres). */
export class PgClient implements SqlClient {
  private readonly pool: pg.Pool;
  /**
   * A name for each statement text seen (the order path repeats a handful: the journal's INSERT of one
   * or two records, the idempotency claim and finish): each connection parses and plans a named
   * statement once, then only binds and executes it. A name always stands for the one text.
   */
  private readonly names = new Map<string, string>();

  constructor(options: PgClientOptions) {
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize,
      connectionTimeoutMillis: options.timeoutMs,
      statement_timeout: options.timeoutMs,
      query_timeout: options.timeoutMs,
      idleTimeoutMillis: 30_000,
    });
    // An idle client whose server went away must not crash the process: the next query fails instead.
    this.pool.on('error', () => undefined);
  }

  async query<R extends object = SqlRow>(text: string, params: readonly unknown[] = []): Promise<R[]> {
    const result = await this.pool.query({ text, values: [...params], name: this.nameOf(text) });
    return result.rows as R[];
  }

  private nameOf(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= MAX_NAMED_STATEMENTS) return known;
    const name = `pmgw_${this.names.size}`;
    this.names.set(text, name);
    return name;
  }

  async transaction<T>(work: (tx: SqlQuery) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const tx: SqlQuery = {
        query: async <R extends object>(text: string, params: readonly unknown[] = []) =>
          (await client.query(text, [...params])).rows as R[],
      };
      const result = await work(tx);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
