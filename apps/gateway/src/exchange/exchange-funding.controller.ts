import { Controller, Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import {
  type AccountCallerContext,
  type BalanceRequest,
  BalanceRequestSchema,
  type BalancesRequest,
  BalancesRequestSchema,
  type DepositRequest,
  DepositRequestSchema,
  ExchangeAccounts,
  ProcessorParamsSchema,
} from '@lib/exchange';
import type { FastifyReply } from 'fastify';

import { ApiParticipantHeader } from '../common/decorators/accounts.decorators.js';
import { RequireScopes } from '../common/decorators/auth.decorators.js';
import { relay } from '../common/http/relay.js';
import { ZodParams } from '../common/pipes/zod-params.js';
import { AccountCaller } from './exchange-caller.decorators.js';
import { ExchangeBody } from './identity/bound-body.decorator.js';
import type { BoundBody } from './identity/identity-binder.js';
import { OwnedFundingAccounts } from './identity/owned-funding-accounts.service.js';

/** Funding and balances (spec 4.1 "other operations"); payloads not shown, passed through; account-scoped. */
@ApiTags('exchange funding and balances')
@ApiBearerAuth()
@ApiParticipantHeader()
@Controller('exchange/v1')
export class ExchangeFundingController {
  constructor(
    private readonly accounts: ExchangeAccounts,
    private readonly owned: OwnedFundingAccounts,
  ) {}

  @Get('funding/accounts')
  @RequireScopes('read:funding')
  async fundingAccounts(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext) {
    relay(res, await this.accounts.fundingAccounts(caller));
  }

  /** `checkout` and the other processor of spec 4.1 (`<processor_a>`); an unknown processor is a 404. */
  @Post(':processor/deposits')
  @HttpCode(200)
  @RequireScopes('write:funding')
  async deposit(
    @Res() res: FastifyReply,
    @AccountCaller() caller: AccountCallerContext,
    @ZodParams(ProcessorParamsSchema) { processor }: { processor: string },
    @ExchangeBody(DepositRequestSchema) bound: BoundBody<DepositRequest>,
  ) {
    relay(res, await this.accounts.deposit(caller, processor, await this.owned.confirmed(caller, bound)));
  }

  @Post('positions/balance')
  @HttpCode(200)
  @RequireScopes('read:positions')
  async balance(
    @Res() res: FastifyReply,
    @AccountCaller() caller: AccountCallerContext,
    @ExchangeBody(BalanceRequestSchema) bound: BoundBody<BalanceRequest>,
  ) {
    relay(res, await this.accounts.balance(caller, bound.body));
  }

  @Post('positions/balances')
  @HttpCode(200)
  @RequireScopes('read:positions')
  async balances(
    @Res() res: FastifyReply,
    @AccountCaller() caller: AccountCallerContext,
    @ExchangeBody(BalancesRequestSchema) bound: BoundBody<BalancesRequest>,
  ) {
    relay(res, await this.accounts.balances(caller, bound.body));
  }
}
