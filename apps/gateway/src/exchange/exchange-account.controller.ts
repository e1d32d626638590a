import { Controller, Get, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { type AccountCallerContext, type CallerContext, ExchangeAccounts } from '@lib/exchange';
import type { FastifyReply } from 'fastify';

import { ApiParticipantHeader } from '../common/accounts.decorators.js';
import { RequireScopes } from '../common/auth.decorators.js';
import { relay } from '../common/relay.js';
import { AccountCaller, MarketCaller } from './exchange-caller.decorators.js';

/** Exchange identity, health and positions (spec 4.1 "other operations"; payloads not shown, passed through). */
@ApiTags('exchange')
@ApiBearerAuth()
@Controller('exchange/v1')
export class ExchangeAccountController {
  constructor(private readonly accounts: ExchangeAccounts) {}

  /** Upstream health; needs an API key but no scope. */
  @Get('health')
  async health(@Res() res: FastifyReply, @MarketCaller() caller: CallerContext) {
    relay(res, await this.accounts.health(caller));
  }

  /** Scope not in the spec table: read:accounts ("account information") is the closest. */
  @Get('whoami')
  @RequireScopes('read:accounts')
  async whoami(@Res() res: FastifyReply, @MarketCaller() caller: CallerContext) {
    relay(res, await this.accounts.whoami(caller));
  }

  /** Scope not in the spec table: read:accounts ("account information") is the closest. */
  @Get('users')
  @RequireScopes('read:accounts')
  async users(@Res() res: FastifyReply, @MarketCaller() caller: CallerContext) {
    relay(res, await this.accounts.users(caller));
  }

  @Get('positions')
  @RequireScopes('read:positions')
  @ApiParticipantHeader()
  async positions(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext) {
    relay(res, await this.accounts.positions(caller));
  }
}
