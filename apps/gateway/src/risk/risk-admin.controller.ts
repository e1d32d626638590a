import { Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { DomainError, ErrorCode } from '@lib/core';
import { z } from 'zod';

import { CurrentClient, RequireScopes } from '../common/decorators/auth.decorators.js';
import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { ZodBody } from '../common/pipes/zod-params.js';
import { AdminRecord } from './admin-record.service.js';
import { type KillReport, KillSwitch } from './kill-switch.service.js';
import { RejectBreaker } from './reject-breaker.service.js';
import type { RiskLimit } from './risk.config.js';
import type { BreakerRecord } from './reject-breaker.store.js';
import {
  TRADING_STATES,
  type TradingStateChange,
  type TradingStateRecord,
  TradingScopeSchema,
} from './trading-state.js';
import { TradingStates } from './trading-states.service.js';
import { RiskMetrics } from './risk.metrics.js';
import {
  AdminReasonSchema,
  type DeleteLimits,
  DeleteLimitsSchema,
  type LimitsChange,
  type PutLimits,
  PutLimitsSchema,
} from './risk-limits-set.js';
import { RiskLimitsSource } from './risk-limits-source.service.js';

const SetStateSchema = z
  .object({
    scope: TradingScopeSchema,
    state: z.enum(TRADING_STATES),
    /** Every change names why; it is recorded with who and when. */
    reason: AdminReasonSchema,
    /** The state the caller read (GET /admin/risk; none latched: `active`): another latched is refused 412 naming it. */
    expected: z.enum(TRADING_STATES).optional(),
  })
  .strict()
  .meta({
    examples: [
      { scope: 'team:trading', state: 'halted', reason: 'runaway bot, ticket OPS-1234' },
      { scope: 'team:trading', state: 'active', reason: 'bot fixed, OPS-1234', expected: 'halted' },
    ],
  });
type SetState = z.infer<typeof SetStateSchema>;

const ResetBreakerSchema = z
  .object({
    client: z.string().min(1).max(200),
    /** Every reset names why; it is journaled with who and when. */
    reason: AdminReasonSchema,
  })
  .strict()
  .meta({ examples: [{ client: 'bot-7', reason: 'bad tick size fixed, OPS-1235' }] });
type ResetBreaker = z.infer<typeof ResetBreakerSchema>;

/** The firm's brakes: read the trading states, limits and change history; latch or lift a state (admin only). */
@ApiTags('admin')
@ApiBearerAuth()
@Controller('admin/risk')
@RequireScopes('admin')
export class RiskAdminController {
  constructor(
    private readonly limits: RiskLimitsSource,
    private readonly states: TradingStates,
    private readonly killSwitch: KillSwitch,
    private readonly record: AdminRecord,
    private readonly metrics: RiskMetrics,
    private readonly breaker: RejectBreaker,
  ) {}

  @Get()
  async view(): Promise<{
    states: TradingStateRecord[];
    limits: RiskLimit[];
    limitsSet: ReturnType<RiskLimitsSource['describe']>;
    changes: TradingStateChange[];
    limitChanges: LimitsChange[];
    breakers: BreakerRecord[];
  }> {
    return {
      states: this.states.list(),
      limits: [...this.limits.current().limits],
      limitsSet: this.limits.describe(),
      changes: await this.states.changes(50),
      limitChanges: await this.limits.changes(50),
      breakers: this.breaker.list(),
    };
  }

  /**
   * Replaces the risk limits in force on every instance (validated as config's `risk.limits`); wins over
   * config until DELETE. `version`: the `limitsSet.version` read; a newer one in force answers 412
   * PRECONDITION_FAILED naming it. Journaled (who, when, why, old → new).
   */
  @Put('limits')
  @HttpCode(200)
  async putLimits(
    @CurrentClient() admin: AuthenticatedClient,
    @ZodBody(PutLimitsSchema) body: PutLimits,
  ): Promise<{ change: LimitsChange; journaled: boolean }> {
    const change = await this.limits.replace(body.limits, body.reason, admin.id, body.version);
    return { change, journaled: await this.record.limitsChanged(change) };
  }

  /** Back to config's limits on every instance; the body names the reason (and optionally the version read). */
  @Delete('limits')
  @HttpCode(200)
  async deleteLimits(
    @CurrentClient() admin: AuthenticatedClient,
    @ZodBody(DeleteLimitsSchema) body: DeleteLimits,
  ): Promise<{ change: LimitsChange; journaled: boolean }> {
    const change = await this.limits.replace(null, body.reason, admin.id, body.version);
    return { change, journaled: await this.record.limitsChanged(change) };
  }

  /** Closes a client's reject breaker on every instance before its cool-off ends; journaled (who, when, why, what was open). */
  @Post('breakers/reset')
  @HttpCode(200)
  async resetBreaker(
    @CurrentClient() admin: AuthenticatedClient,
    @ZodBody(ResetBreakerSchema) body: ResetBreaker,
  ): Promise<{ client: string; was: BreakerRecord | null; journaled: boolean }> {
    const was = await this.breaker.reset(body.client);
    const journaled = await this.record.breakerReset(body.client, admin.id, body.reason, new Date().toISOString(), was);
    return { client: body.client, was: was ?? null, journaled };
  }

  /**
   * Latches a state on a scope on every instance (`active` lifts it); `expected`, when sent, must be the
   * state latched, else 412 and nothing changes (no cancels either). `halt-and-cancel` latches the halt
   * first, then cancels the scope's resting orders and answers with the report. The change and the
   * run are appended to the order journal (`journaled` says whether that write succeeded); the cancels
   * never wait for it.
   */
  @Post('states')
  @HttpCode(200)
  async set(
    @CurrentClient() admin: AuthenticatedClient,
    @ZodBody(SetStateSchema) body: SetState,
  ): Promise<{ change: TradingStateChange; report?: KillReport; journaled: boolean }> {
    const change = await this.states
      .set(body.scope, body.state, body.reason, admin.id, body.expected)
      .catch(async (error: unknown) => {
        if (body.state === 'halt-and-cancel' && isUnlatched(error)) await this.cancelUnlatched(body, admin, error);
        throw error;
      });
    // Written beside the cancels, never ahead of them: a stalled journal would hold the kill switch for its timeouts.
    const changeJournaled = this.record.stateChanged(change);
    if (body.state !== 'halt-and-cancel') return { change, journaled: await changeJournaled };
    const report = await this.killSwitch.cancelAll(body.scope, true);
    this.metrics.killed(report);
    const runJournaled = await this.record.killed(change, report);
    return { change, report, journaled: (await changeJournaled) && runJournaled };
  }

  /**
   * Halt-and-cancel whose halt could not be latched (its store, Redis, is unreachable): a cancel is never
   * held back by it, so the scope's resting orders are cancelled all the same; the answer stays the 503
   * (new orders are not refused by a halt), carrying the run's report.
   */
  private async cancelUnlatched(body: SetState, admin: AuthenticatedClient, unlatched: DomainError): Promise<never> {
    const report = await this.killSwitch.cancelAll(body.scope);
    this.metrics.killed(report);
    const journaled = await this.record.ran(
      { action: 'kill-switch', scope: body.scope, by: admin.id, reason: body.reason },
      report,
    );
    throw new DomainError(
      ErrorCode.SERVICE_UNAVAILABLE,
      "The halt could not be latched (its store is unreachable), so new orders are not refused by it; the scope's resting orders were cancelled all the same (report).",
      { cause: unlatched, extensions: { scope: body.scope, report, journaled } },
    );
  }
}

/** The store refused the latch (unreachable): not a refusal of the request itself (a scope naming nobody is a 400). */
const isUnlatched = (error: unknown): error is DomainError =>
  error instanceof DomainError && error.code === ErrorCode.SERVICE_UNAVAILABLE;
