import { Controller, Get, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AccountCallerContext, type CallerContext, ExchangeAccounts } from '@lib/exchange';
import type { FastifyReply } from 'fastify';

import { ApiParticipantHeader } from '../common/decorators/accounts.decorators.js';
import { CurrentClient, RequireScopes } from '../common/decorators/auth.decorators.js';
import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { relay } from '../common/http/relay.js';
import { AccountCaller, MarketCaller } from './exchange-caller.decorators.js';
import { visibleIdentity } from './identity/visible-identity.js';

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

  /**
   * Scope not in the spec table: read:accounts ("account information") is the closest. Without
   * `admin`, only the participants the key may act for and the scopes it holds are shown.
   */
  @Get('whoami')
  @RequireScopes('read:accounts')
  @ApiOperation({ description: "Without the admin scope: only the API key's own participants and scopes." })
  async whoami(
    @Res() res: FastifyReply,
    @MarketCaller() caller: CallerContext,
    @CurrentClient() client: AuthenticatedClient,
  ) {
    relay(res, visibleIdentity(await this.accounts.whoami(caller), client));
  }

  /** Scope not in the spec table: read:accounts is the closest. Without `admin`, only the key's own participants. */
  @Get('users')
  @RequireScopes('read:accounts')
  @ApiOperation({ description: 'Without the admin scope: only the participants the API key may act for.' })
  async users(
    @Res() res: FastifyReply,
    @MarketCaller() caller: CallerContext,
    @CurrentClient() client: AuthenticatedClient,
  ) {
    relay(res, visibleIdentity(await this.accounts.users(caller), client));
  }

  @Get('positions')
  @RequireScopes('read:positions')
  @ApiParticipantHeader()
  async positions(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext) {
    relay(res, await this.accounts.positions(caller));
  }
}
