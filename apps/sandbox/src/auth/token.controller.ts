import { Body, Controller, Header, Headers, HttpCode, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

import { FaultBoard } from '../shared/fault-board.js';
import { SandboxCounters } from '../shared/sandbox-counters.js';
import { type TokenResponse, TokenService } from './token.service.js';

@Controller('oauth/token')
export class TokenController {
  constructor(
    private readonly tokens: TokenService,
    private readonly faults: FaultBoard,
    private readonly counters: SandboxCounters,
  ) {}

  @Post()
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  token(
    @Headers('content-type') contentType: string | undefined,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): TokenResponse | undefined {
    if (this.faults.active.authDown) return this.dropConnection(reply);
    return this.tokens.grant(contentType, body);
  }

  /** The authDown fault: no status, no body, the socket just closes, as with an unreachable server. */
  private dropConnection(reply: FastifyReply): undefined {
    this.counters.count('token.dropped');
    reply.hijack();
    reply.raw.destroy();
    return undefined;
  }
}
