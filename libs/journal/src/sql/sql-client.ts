/** One row of a query answer, by column name. */
export type SqlRow = Record<string, unknown>;

/** What the journal needs of a database: queries, and a transaction that holds one connection. */
export interface SqlClient {
  query<R extends object = SqlRow>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs `work` inside BEGIN … COMMIT on one connection (ROLLBACK when it throws). */
  transaction<T>(work: (tx: SqlQuery) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export type SqlQuery = Pick<SqlClient, 'query'>;
