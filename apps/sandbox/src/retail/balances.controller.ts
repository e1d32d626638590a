import { Controller, Get, Inject } from '@nestjs/common';

import { type RetailBalance, SANDBOX_STATE, type SandboxState } from '../shared/sandbox-state.js';
import { RetailKeyId } from './retail-auth.decorators.js';

@Controller('v1/account/balances')
export class BalancesController {
  constructor(@Inject(SANDBOX_STATE) private readonly state: SandboxState) {}

  @Get()
  balances(@RetailKeyId() keyId: string): { balances: RetailBalance[] } {
    return { balances: [this.state.retailBalance(keyId)] };
  }
}
