import { Inject, Injectable, Logger } from '@nestjs/common';
import { JOURNAL_DATABASE, type JournalDatabase, type JournalEntry } from '@lib/journal';

import type { KillReport } from './kill-switch.service.js';
import type { BreakerRecord } from './reject-breaker.store.js';
import type { LimitsChange } from './risk-limits-set.js';
import type { TradingStateChange } from './trading-state.js';

/**
 * Puts the firm's brakes on the order journal's hash chain (kind `admin`): every trading-state change
 * and every change of the risk limits (who, when, old → new, why), and every kill-switch run with its report, plus one record per order it
 * met, under that order's id, so the order's timeline shows who cancelled it and why. A state is latched
 * before it is journaled and a journal outage never holds a halt back: the answer says whether it was
 * recorded, and the failure is logged.
 */
@Injectable()
export class AdminRecord {
  private readonly logger = new Logger(AdminRecord.name);

  constructor(@Inject(JOURNAL_DATABASE) private readonly store: JournalDatabase) {}

  stateChanged(change: TradingStateChange): Promise<boolean> {
    return this.append([
      {
        kind: 'admin',
        clientId: change.by,
        ...teamOf(change.scope),
        data: {
          action: 'trading-state',
          scope: change.scope,
          from: change.from,
          to: change.state,
          reason: change.reason,
          by: change.by,
          at: change.at,
        },
      },
    ]);
  }

  /** An admin replaced the risk limits in force (`to` null: back to config's): who, when, why, old → new. */
  limitsChanged(change: LimitsChange): Promise<boolean> {
    return this.append([
      {
        kind: 'admin',
        clientId: change.by,
        data: {
          action: 'risk-limits',
          version: change.version,
          from: change.from,
          to: change.to ?? 'config',
          reason: change.reason,
          by: change.by,
          at: change.at,
        },
      },
    ]);
  }

  /** An admin closed a client's reject breaker before its cool-off ended (who, when, why, what was open). */
  breakerReset(
    client: string,
    by: string,
    reason: string,
    at: string,
    was: BreakerRecord | undefined,
  ): Promise<boolean> {
    return this.append([
      { kind: 'admin', clientId: by, data: { action: 'breaker-reset', client, by, reason, at, was: was ?? null } },
    ]);
  }

  killed(change: TradingStateChange, report: KillReport): Promise<boolean> {
    return this.ran({ action: 'kill-switch', scope: change.scope, by: change.by, reason: change.reason }, report);
  }

  /**
   * One cancel run of the kill switch, whoever triggered it: an admin's halt-and-cancel (`kill-switch`),
   * or the gateway itself (`cancel-on-disconnect`, `dead-man-switch`, by the client whose orders they are):
   * the run with its report, then one record per order it met.
   */
  ran(
    trigger: {
      action: 'kill-switch' | 'cancel-on-disconnect' | 'dead-man-switch';
      scope: string;
      by: string;
      reason: string;
    },
    report: KillReport,
  ): Promise<boolean> {
    const base = { action: trigger.action, scope: trigger.scope, by: trigger.by, reason: trigger.reason };
    const summary = {
      targeted: report.targeted,
      cancelled: report.cancelled.length,
      filledFirst: report.filledFirst.length,
      closed: report.closed.length,
      unresolved: report.unresolved.length,
      remainingOpen: report.remainingOpen,
      durationMs: report.durationMs,
    };
    const perOrder =
      (outcome: string) =>
      (order: KillReport['cancelled'][number]): JournalEntry => ({
        kind: 'admin',
        ...(order.orderId === '*' ? {} : { orderId: order.orderId }),
        clientId: trigger.by,
        data: {
          ...base,
          outcome,
          owner: order.owner,
          ...(order.symbol ? { symbol: order.symbol } : {}),
          ...(order.problem ? { problem: order.problem } : {}),
        },
      });
    return this.append([
      { kind: 'admin', clientId: trigger.by, ...teamOf(trigger.scope), data: { ...base, summary, report } },
      ...report.cancelled.map(perOrder('cancelled')),
      ...report.filledFirst.map(perOrder('filled-first')),
      ...report.closed.map(perOrder('closed')),
      ...report.unresolved.map(perOrder('unresolved')),
    ]);
  }

  private async append(entries: JournalEntry[]): Promise<boolean> {
    try {
      await this.store.journal.append(...entries);
      return true;
    } catch (error) {
      this.logger.error(
        { adminRecord: entries[0]?.data },
        `an admin action was not journaled (${(error as Error).message}); it took effect all the same`,
      );
      return false;
    }
  }
}

/** A team scope's records carry the team, so the team may read them. */
function teamOf(scope: string): { team?: string } {
  return scope.startsWith('team:') ? { team: scope.slice('team:'.length) } : {};
}
