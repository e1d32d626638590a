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
 * `down` makes the gateway not ready; `degraded` keeps it ready but says so. The gateway's
 * health controller turns each check into a Terminus indicator.
 */
@Injectable()
export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();

  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  names(): string[] {
    return [...this.checks.keys()];
  }

  /** Every check at once, with the worst status as the overall one. */
  async report(): Promise<{ status: ReadinessStatus; checks: Record<string, ReadinessReport> }> {
    const entries = await Promise.all(this.names().map(async (name) => [name, await this.run(name)] as const));
    const statuses = entries.map(([, r]) => r.status);
    const status: ReadinessStatus = statuses.includes('down')
      ? 'down'
      : statuses.includes('degraded')
        ? 'degraded'
        : 'up';
    return { status, checks: Object.fromEntries(entries) };
  }

  /** Runs one check; a check that throws is `down`, never an error of the caller. */
  async run(name: string): Promise<ReadinessReport> {
    const check = this.checks.get(name);
    if (!check) return { status: 'down', details: { reason: 'no such check' } };
    try {
      return await check();
    } catch {
      return { status: 'down' };
    }
  }
}

@Global()
@Module({
  exports: [Readiness],
  providers: [Readiness],
})
export class ReadinessModule {}
