import pg from 'pg';

import type { SqlClient, SqlQuery, SqlRow } from './sql-client.js';

export interface PgClientOptions {
  url: string;
  poolSize: number;
  /** Connecting and each statement are bounded by this: an unreachable server fails fast. */
  timeoutMs: number;
}

/** A real PostgreSQL server through a pool (node-postgres). */
export class PgClient implements SqlClient {
  private readonly pool: pg.Pool;

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
    const result = await this.pool.query(text, [...params]);
    return result.rows as R[];
  }

  async transaction<T>(work: (tx: SqlQuery) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const tx: SqlQuery = { query: async <R extends object>(text: string, params: readonly unknown[] = []) => (await client.query(text, [...params])).rows as R[] };
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
