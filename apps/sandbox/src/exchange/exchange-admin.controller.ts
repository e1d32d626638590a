import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { z } from 'zod';

import { parseBody } from '../shared/parse-body.js';
import { SANDBOX_STATE, type SandboxFaults, type SandboxState } from '../shared/sandbox-state.js';
import { ExchangePublic } from './exchange-auth.decorators.js';
import { InstrumentState } from './wire/exchange-request.wire.js';

const StateBody = z.strictObject({ state: InstrumentState, settlementPx: z.int().optional() });
const FaultsBody = z.strictObject({ delayMs: z.record(z.string(), z.int().min(0)) });

/**
 * The operator's side of the exchange (not an upstream route), for tests: instrument state changes
 * and slow operations. Unauthenticated on purpose: the sandbox is a local test double.
 */
@Controller('_sandbox')
@ExchangePublic()
export class ExchangeAdminController {
  constructor(@Inject(SANDBOX_STATE) private readonly state: SandboxState) {}

  /** Moves an instrument to a state with the engine's side effects (auction, expiry, settlement); unknown symbol 404. */
  @Post('instruments/:symbol/state')
  @HttpCode(200)
  setState(@Param('symbol') symbol: string, @Body() body: unknown): { symbol: string; state: string } {
    const { state, settlementPx } = parseBody(StateBody, body);
    this.state.engine.setState(symbol, state, settlementPx === undefined ? {} : { settlementPx });
    return { symbol, state };
  }

  /** `{delayMs: {insertOrder: 2000}}` holds each named operation that long; 0 removes the delay. */
  @Post('exchange/faults')
  @HttpCode(200)
  setFaults(@Body() body: unknown): SandboxFaults {
    return this.state.setFaults({ exchangeDelayMs: parseBody(FaultsBody, body).delayMs });
  }
}
