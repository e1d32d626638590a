import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  HealthCheckService,
  HealthIndicatorService,
  type HealthCheckResult,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import { Readiness, type ReadinessReport } from '@lib/core';
import type { FastifyReply } from 'fastify';

import { Public } from '../common/decorators/auth.decorators.js';

@ApiTags('operations')
@Controller('health')
@Public()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly readiness: Readiness,
  ) {}

  /** The process is up and serving; says nothing about dependencies. */
  @Get('live')
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /**
   * Every registered dependency check (Redis, upstream credentials, limiter mode) as a Terminus
   * indicator: 200 while all are up or degraded, 503 when one is down.
   */
  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthCheckResult> {
    const checks = this.readiness.names().map((name) => () => this.indicate(name));
    try {
      return await this.health.check(checks);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      reply.status(503);
      return error.getResponse() as HealthCheckResult;
    }
  }

  private async indicate(name: string): Promise<HealthIndicatorResult> {
    const report: ReadinessReport = await this.readiness.run(name);
    const session = this.indicators.check(name);
    const details = report.details ?? {};
    if (report.status === 'up') return session.up(details);
    return report.status === 'degraded' ? session.degraded(details) : session.down(details);
  }
}
