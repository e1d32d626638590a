import { Body, Controller, Header, Headers, HttpCode, Inject, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

import { SANDBOX_STATE, type SandboxState } from '../shared/sandbox-state.js';
import { type TokenResponse, TokenService } from './token.service.js';

@Controller('oauth/token')
export class TokenController {
  constructor(
    private readonly tokens: TokenService,
    @Inject(SANDBOX_STATE) private readonly state: SandboxState,
  ) {}

  @Post()
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  token(
    @Headers('content-type') contentType: string | undefined,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): TokenResponse | undefined {
    if (this.state.faults.authDown) return this.dropConnection(reply);
    return this.tokens.grant(contentType, body);
  }

  /** The authDown fault: no status, no body, the socket just closes, as with an unreachable server. */
  private dropConnection(reply: FastifyReply): undefined {
    this.state.count('token.dropped');
    reply.hijack();
    reply.raw.destroy();
    return undefined;
  }
}
