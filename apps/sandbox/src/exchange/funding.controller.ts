import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { z } from 'zod';

import { MatchingEngine } from '../engine/index.js';
import { parseBody } from '../shared/parse-body.js';
import { SandboxClock } from '../shared/sandbox-clock.js';
import { SurfaceError } from '../shared/surface-error.js';
import { AccountScoped, ExchangeScope, Participant } from './exchange-auth.decorators.js';
import { ExchangeOperation } from './exchange-operation.decorator.js';
import { type Deposit, type FundingAccount, FundingStore } from './funding/funding-store.js';
import { Int64String } from './wire/exchange-request.wire.js';
import { engineInt } from './wire/int64-wire.js';
import { type BalanceRecord, balanceRecord } from './wire/ledger-wire.js';

/** The deposit payload is not shown upstream; the sandbox's: an amount in cents, USD only. */
const DepositBody = z.strictObject({
  amount: Int64String.refine((amount) => !amount.startsWith('-') && amount !== '0', {
    message: 'a deposit must be positive',
  }),
  currency: z.literal('USD').optional(),
  fundingAccountId: z.string().optional(),
});

/** Spec 4.1 funding operations for the x-participant-id; a deposit credits the engine's cash at once. */
@Controller('v1')
@AccountScoped()
export class FundingController {
  constructor(
    private readonly engine: MatchingEngine,
    private readonly clock: SandboxClock,
    private readonly funding: FundingStore,
  ) {}

  @Get('funding/accounts')
  @ExchangeScope('read:funding')
  @ExchangeOperation('fundingAccounts')
  accounts(@Participant() participant: string): { accounts: FundingAccount[]; deposits: Deposit[] } {
    return { accounts: this.funding.accounts(participant), deposits: this.funding.depositsOf(participant) };
  }

  /** `POST /v1/<processor>/deposits` for each configured processor (spec 4.1: checkout and <processor_a>). */
  @Post(':processor/deposits')
  @HttpCode(200)
  @ExchangeScope('write:funding')
  @ExchangeOperation('deposit')
  deposit(
    @Participant() participant: string,
    @Param('processor') processor: string,
    @Body() body: unknown,
  ): { deposit: Deposit; balance: BalanceRecord } {
    if (!this.funding.knows(processor)) throw new SurfaceError(404, `no deposit processor ${processor}`);
    const request = parseBody(DepositBody, body);
    const amount = engineInt(request.amount, 'amount') as number;
    const deposit = this.funding.deposit(
      participant,
      processor,
      { amount, fundingAccountId: request.fundingAccountId },
      this.clock.now(),
    );
    return { deposit, balance: balanceRecord(this.engine.balance(participant)) };
  }
}
