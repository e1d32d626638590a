import { Global, Injectable, Module } from '@nestjs/common';

export type ReadinessStatus = 'up' | 'degraded' | 'down';

export interface ReadinessReport {
  status: ReadinessStatus;
  /** Safe, secret-free details (ages, counts, modes). */
  details?: Record<string, unknown>;
}

export type ReadinessCheck = () => Promise<ReadinessReport> | ReadinessReport;

/**
 * Where parts of the gateway declare what readiness depends on (Redis, upstream credentials, ...).
 * `down` makes the gateway not ready; `degraded` keeps it ready but says so.
 */
@Injectable()
export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();

  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  async report(): Promise<{ status: ReadinessStatus; checks: Record<string, ReadinessReport> }> {
    const entries = await Promise.all(
      [...this.checks].map(async ([name, check]): Promise<[string, ReadinessReport]> => {
        try {
          return [name, await check()];
        } catch {
          return [name, { status: 'down' }];
        }
      }),
    );
    const checks = Object.fromEntries(entries);
    const statuses = entries.map(([, r]) => r.status);
    const status: ReadinessStatus = statuses.includes('down') ? 'down' : statuses.includes('degraded') ? 'degraded' : 'up';
    return { status, checks };
  }
}

@Global()
@Module({
  exports: [Readiness],
  providers: [Readiness],
})
export class ReadinessModule {}
