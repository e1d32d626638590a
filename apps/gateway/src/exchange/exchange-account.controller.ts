import { Controller, Get, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiTags } from '@nestjs/swagger';
import { ExchangeHttpClient } from '@lib/exchange';
import type { FastifyReply } from 'fastify';

import { PARTICIPANT_HEADER, Participant, RequestId } from '../common/accounts.decorators.js';
import { RequireScopes } from '../common/auth.decorators.js';
import { relay } from '../common/relay.js';

/** Exchange identity, health and positions (spec §4.1 "other operations"; payloads not shown, passed through). */
@ApiTags('exchange')
@ApiBearerAuth()
@Controller('exchange/v1')
export class ExchangeAccountController {
  constructor(private readonly exchange: ExchangeHttpClient) {}

  /** Upstream health; needs an API key but no scope. */
  @Get('health')
  async health(@Res() res: FastifyReply, @RequestId() requestId: string) {
    relay(res, await this.exchange.send({ method: 'GET', path: '/v1/health', anonymous: true, requestId }));
  }

  /** Scope not in the spec table: read:accounts ("account information") is the closest. */
  @Get('whoami')
  @RequireScopes('read:accounts')
  async whoami(@Res() res: FastifyReply, @RequestId() requestId: string) {
    relay(res, await this.exchange.send({ method: 'GET', path: '/v1/whoami', requestId }));
  }

  /** Scope not in the spec table: read:accounts ("account information") is the closest. */
  @Get('users')
  @RequireScopes('read:accounts')
  async users(@Res() res: FastifyReply, @RequestId() requestId: string) {
    relay(res, await this.exchange.send({ method: 'GET', path: '/v1/users', requestId }));
  }

  @Get('positions')
  @RequireScopes('read:positions')
  @ApiHeader({ name: PARTICIPANT_HEADER, required: false, description: 'firms/<FIRM>/users/<USER>; default: the client\'s first participant' })
  async positions(@Res() res: FastifyReply, @Participant() participant: string, @RequestId() requestId: string) {
    relay(res, await this.exchange.send({ method: 'GET', path: '/v1/positions', participant, requestId }));
  }
}
