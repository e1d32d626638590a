import { Controller, Get, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiTags } from '@nestjs/swagger';
import { RetailHttpClient } from '@lib/retail';
import type { FastifyReply } from 'fastify';

import { RETAIL_ACCOUNT_HEADER, RequestId, RetailAccount } from '../common/accounts.decorators.js';
import { RequireScopes } from '../common/auth.decorators.js';
import { relay } from '../common/relay.js';

@ApiTags('retail')
@ApiBearerAuth()
@ApiHeader({ name: RETAIL_ACCOUNT_HEADER, required: false, description: "retail account name; default: the client's first" })
@Controller('retail/v1')
export class RetailAccountController {
  constructor(private readonly retail: RetailHttpClient) {}

  @Get('account/balances')
  @RequireScopes('read:positions')
  async balances(@Res() res: FastifyReply, @RetailAccount() account: string, @RequestId() requestId: string) {
    relay(res, await this.retail.send({ method: 'GET', path: '/v1/account/balances', account, requestId }));
  }
}
