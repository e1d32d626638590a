import { Controller, Get, Inject } from '@nestjs/common';

import { type ExchangePosition, SANDBOX_STATE, type SandboxState } from '../shared/sandbox-state.js';
import { AccountScoped, ExchangeScope, Participant } from './exchange-auth.decorators.js';

@Controller('v1/positions')
export class PositionsController {
  constructor(@Inject(SANDBOX_STATE) private readonly state: SandboxState) {}

  @Get()
  @ExchangeScope('read:positions')
  @AccountScoped()
  positions(@Participant() participant: string): { positions: ExchangePosition[] } {
    return { positions: this.state.positionsOf(participant) };
  }
}
