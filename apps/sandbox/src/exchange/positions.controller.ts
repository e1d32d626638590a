import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';

import { MatchingEngine } from '../engine/index.js';
import { parseBody } from '../shared/parse-body.js';
import { AccountScoped, Caller, ExchangeScope, Participant } from './exchange-auth.decorators.js';
import type { ExchangeCaller } from './exchange-authorization.js';
import { ExchangeOperation } from './exchange-operation.decorator.js';
import { accountFor, visibleAccounts } from './firm-accounts.js';
import { type BalanceRecord, type PositionRecord, balanceRecord, positionRecord } from './wire/ledger-wire.js';

// Request payloads are not shown upstream: the sandbox takes an optional account (or accounts) of the firm.
const BalanceBody = z.strictObject({ account: z.string().optional() });
const BalancesBody = z.strictObject({ accounts: z.array(z.string()).optional() });

/** Positions and cash from the engine's ledger, for the x-participant-id (spec 4.1 "other operations"). */
@Controller('v1/positions')
@AccountScoped()
@ExchangeScope('read:positions')
export class PositionsController {
  constructor(private readonly engine: MatchingEngine) {}

  @Get()
  @ExchangeOperation('positions')
  positions(@Participant() participant: string): { positions: PositionRecord[] } {
    return { positions: this.engine.positions(participant).map(positionRecord) };
  }

  @Post('balance')
  @HttpCode(200)
  @ExchangeOperation('balance')
  balance(@Caller() caller: ExchangeCaller, @Body() body: unknown): { balance: BalanceRecord } {
    const account = accountFor(caller, parseBody(BalanceBody, body ?? {}).account);
    return { balance: balanceRecord(this.engine.balance(account)) };
  }

  /** Every user of the firm unless the request names some. */
  @Post('balances')
  @HttpCode(200)
  @ExchangeOperation('balances')
  balances(@Caller() caller: ExchangeCaller, @Body() body: unknown): { balances: BalanceRecord[] } {
    const accounts = visibleAccounts(caller, parseBody(BalancesBody, body ?? {}).accounts);
    return { balances: accounts.map((account) => balanceRecord(this.engine.balance(account))) };
  }
}
