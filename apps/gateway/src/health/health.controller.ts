import { Controller, Get, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Readiness } from '@lib/core';
import type { FastifyReply } from 'fastify';

import { Public } from '../common/auth.decorators.js';

@ApiTags('operations')
@Controller('health')
@Public()
export class HealthController {
  constructor(private readonly readiness: Readiness) {}

  /** The process is up and serving; says nothing about dependencies. */
  @Get('live')
  live(): { status: 'up' } {
    return { status: 'up' };
  }

  /** 200 while every dependency is up or degraded, 503 when one is down. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const report = await this.readiness.report();
    reply.status(report.status === 'down' ? 503 : 200);
    return report;
  }
}
