import { mkdirSync } from 'node:fs';

import type { SqlClient, SqlQuery, SqlRow } from './sql-client.js';

/** The subset of PGlite used here (its module is loaded only when no server is configured). */
interface Pglite {
  waitReady: Promise<void>;
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
  transaction<T>(
    work: (tx: { query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }> }) => Promise<T>,
  ): Promise<T>;
  close(): Promise<void>;
}

/**
 * The embedded default: PostgreSQL compiled to WASM (PGlite), persisted in a directory, running the
 * same SQL as the server. One connection: PGlite runs one statement at a time, so transactions queue.
 */
export class EmbeddedClient implements SqlClient {
  private constructor(private readonly db: Pglite) {}

  static async open(dir: string): Promise<EmbeddedClient> {
    mkdirSync(dir, { recursive: true });
    const { PGlite } = await import('@electric-sql/pglite');
    const db = new PGlite(dir) as unknown as Pglite;
    await db.waitReady;
    return new EmbeddedClient(db);
  }

  async query<R extends object = SqlRow>(text: string, params: readonly unknown[] = []): Promise<R[]> {
    return (await this.db.query<R>(text, [...params])).rows;
  }

  transaction<T>(work: (tx: SqlQuery) => Promise<T>): Promise<T> {
    return this.db.transaction((inner) =>
      work({
        query: async <R extends object>(text: string, params: readonly unknown[] = []) =>
          (await inner.query<R>(text, [...params])).rows,
      }),
    );
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
