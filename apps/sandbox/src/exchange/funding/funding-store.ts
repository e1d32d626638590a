import type { MatchingEngine } from '../../engine/index.js';
import { SurfaceError } from '../../shared/surface-error.js';

// Funding records are not shown upstream (spec 2.8); these are the sandbox's own, small on purpose.

export interface FundingAccount {
  id: string;
  participant: string;
  processor: string;
  currency: 'USD';
  status: 'FUNDING_ACCOUNT_STATUS_ACTIVE';
}

export interface Deposit {
  id: string;
  fundingAccountId: string;
  participant: string;
  processor: string;
  /** Cash in price units (cents), an int64 string like every exchange amount. */
  amount: string;
  currency: 'USD';
  status: 'DEPOSIT_STATUS_COMPLETED';
  createTime: string;
}

export interface DepositRequest {
  amount: number;
  fundingAccountId?: string;
}

/** Per participant: one funding account per processor, and the deposits made, each crediting the engine's cash at once. */
export class FundingStore {
  private readonly deposits = new Map<string, Deposit[]>();
  private count = 0;

  constructor(
    private readonly processors: readonly string[],
    private readonly engine: MatchingEngine,
  ) {}

  accounts(participant: string): FundingAccount[] {
    return this.processors.map((processor) => ({
      id: `${processor}:${participant}`,
      participant,
      processor,
      currency: 'USD',
      status: 'FUNDING_ACCOUNT_STATUS_ACTIVE',
    }));
  }

  knows(processor: string): boolean {
    return this.processors.includes(processor);
  }

  deposit(participant: string, processor: string, request: DepositRequest, now: number): Deposit {
    const account = this.accounts(participant).find((candidate) => candidate.processor === processor);
    if (!account || (request.fundingAccountId && request.fundingAccountId !== account.id)) {
      throw new SurfaceError(
        404,
        `no ${processor} funding account ${request.fundingAccountId ?? ''} for ${participant}`.replace('  ', ' '),
      );
    }
    this.engine.deposit(participant, request.amount);
    const deposit: Deposit = {
      id: `D${++this.count}`,
      fundingAccountId: account.id,
      participant,
      processor,
      amount: String(request.amount),
      currency: 'USD',
      status: 'DEPOSIT_STATUS_COMPLETED',
      createTime: new Date(now).toISOString(),
    };
    this.deposits.set(participant, [...(this.deposits.get(participant) ?? []), deposit]);
    return deposit;
  }

  depositsOf(participant: string): Deposit[] {
    return this.deposits.get(participant) ?? [];
  }
}
