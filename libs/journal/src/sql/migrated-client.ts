import { type Clock, systemClock } from '@lib/core';
import type { SqlClient, SqlQuery, SqlRow } from './sql-client.js';

/** How long after a failed migration the next query tries again (meanwhile queries fail at once). */
const RETRY_MS = 5_000;

/**
 * A client whose schema is brought up to date before its first use: a database that is down when the
 * gateway starts does not stop the gateway (market data, reads and cancels go on; new orders are
 * refused 503), and the migrations run as soon as it is back.
 */
export class MigratedClient implements SqlClient {
  private migrated: Promise<void> | undefined;
  private failedAt = 0;
  private lastError: unknown;

  constructor(
    private readonly inner: SqlClient,
    private readonly runMigrations: () => Promise<unknown>,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Tries the migrations now; resolves either way (a failure is retried on use). */
  async warmUp(): Promise<unknown> {
    try {
      await this.ready();
      return undefined;
    } catch (error) {
      return error;
    }
  }

  private ready(): Promise<void> {
    if (this.migrated) return this.migrated;
    if (this.clock.now() - this.failedAt < RETRY_MS) return Promise.reject(this.lastError);
    this.migrated = this.runMigrations().then(
      () => undefined,
      (error: unknown) => {
        this.migrated = undefined;
        this.failedAt = this.clock.now();
        this.lastError = error;
        throw error;
      },
    );
    return this.migrated;
  }

  async query<R extends object = SqlRow>(text: string, params?: readonly unknown[]): Promise<R[]> {
    await this.ready();
    return this.inner.query<R>(text, params);
  }

  async transaction<T>(work: (tx: SqlQuery) => Promise<T>): Promise<T> {
    await this.ready();
    return this.inner.transaction(work);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
