import { Controller, Get } from '@nestjs/common';

import { participantsOf } from '../shared/exchange-clients.js';
import { Caller, ExchangeScope } from './exchange-auth.decorators.js';
import type { ExchangeCaller } from './exchange-authorization.js';
import { ExchangeOperation } from './exchange-operation.decorator.js';

interface WhoAmI {
  clientId: string;
  firm: string;
  participants: string[];
  scopes: string[];
}

// Spec §5.1 lists no scope for whoami and users; read:accounts ("account information") is the one that fits.
@Controller('v1')
@ExchangeScope('read:accounts')
export class AccountController {
  @Get('whoami')
  @ExchangeOperation('whoami')
  whoami(@Caller() { client, scopes }: ExchangeCaller): WhoAmI {
    return { clientId: client.clientId, firm: client.firm, participants: participantsOf(client), scopes: [...scopes] };
  }

  @Get('users')
  @ExchangeOperation('users')
  users(@Caller() { client }: ExchangeCaller): { users: string[] } {
    return { users: participantsOf(client) };
  }
}
