import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, MetricsRegistry } from '@lib/core';
import { Counter, Gauge } from 'prom-client';

import type { KillReport } from './kill-switch.service.js';
import { TradingStates } from './trading-states.service.js';

/** The codes a risk refusal answers with: a trading state, a limit, a field not entitled. */
const RISK_CODES: ReadonlySet<string> = new Set([
  ErrorCode.TRADING_HALTED,
  ErrorCode.TRADING_REDUCE_ONLY,
  ErrorCode.RISK_MAX_QUANTITY,
  ErrorCode.RISK_MAX_NOTIONAL,
  ErrorCode.RISK_MAX_OPEN_ORDERS,
  ErrorCode.RISK_OPEN_NOTIONAL,
  ErrorCode.RISK_POSITION_LIMIT,
  ErrorCode.RISK_POSITION_UNKNOWN,
  ErrorCode.RISK_EVENT_UNKNOWN,
  ErrorCode.RISK_MARKET_UNKNOWN,
  ErrorCode.RISK_FIELD_NOT_ENTITLED,
  ErrorCode.RISK_PRICE_BAND,
  ErrorCode.RISK_REFERENCE_STALE,
  ErrorCode.RISK_CROSS_TEAM_SELF_TRADE,
  ErrorCode.RISK_THROTTLED,
  ErrorCode.RISK_BREAKER_OPEN,
  ErrorCode.TRADING_STATE_UNKNOWN,
]);

/**
 * The risk step's metrics: refusals by code and the scope whose state or limit refused (a what-if is
 * not counted: nothing was refused), the trading states in force (read from the latched set at scrape,
 * 1 per scope and state), and each kill-switch run with its orders by outcome. Scopes are the config's
 * teams, clients and markets an admin named, so the label set stays small.
 */
@Injectable()
export class RiskMetrics {
  private readonly refusals: Counter<'code' | 'scope'>;
  private readonly killRuns: Counter<'scope'>;
  private readonly killOrders: Counter<'scope' | 'outcome'>;
  private readonly breakerTrips: Counter<'client'>;
  private readonly breakerRejects: Counter<'client' | 'source'>;

  constructor(registry: MetricsRegistry, states: TradingStates) {
    this.refusals = new Counter({
      name: 'gateway_risk_refusals_total',
      help: 'Orders refused by a trading state or a risk limit, by problem code and the scope that refused',
      labelNames: ['code', 'scope'],
      registers: [registry],
    });
    this.killRuns = new Counter({
      name: 'gateway_kill_switch_runs_total',
      help: 'Halt-and-cancel runs, by scope',
      labelNames: ['scope'],
      registers: [registry],
    });
    this.killOrders = new Counter({
      name: 'gateway_kill_switch_orders_total',
      help: 'Orders met by halt-and-cancel runs, by scope and outcome (cancelled, filled_first, closed, unresolved)',
      labelNames: ['scope', 'outcome'],
      registers: [registry],
    });
    this.breakerTrips = new Counter({
      name: 'gateway_risk_breaker_trips_total',
      help: 'Reject breakers tripped (N upstream rejects of a client within M seconds), by client',
      labelNames: ['client'],
      registers: [registry],
    });
    this.breakerRejects = new Counter({
      name: 'gateway_risk_breaker_rejects_total',
      help: "Upstream rejects of clients' orders counted by the reject breaker, by client and where the reject was seen (answer: the call's answer; stream: the order stream, after a 200)",
      labelNames: ['client', 'source'],
      registers: [registry],
    });
    new Gauge({
      name: 'gateway_trading_state',
      help: 'Trading states in force on this instance: 1 per scope and latched state (reduce-only, halted, halt-and-cancel); an active scope has no series',
      labelNames: ['scope', 'state'],
      registers: [registry],
      collect() {
        this.reset();
        for (const record of states.list()) this.set({ scope: record.scope, state: record.state }, 1);
      },
    });
  }

  /** Counts `error` when it is a risk refusal; any other error passes uncounted. */
  refused(error: unknown, fallbackScope: string): void {
    if (!(error instanceof DomainError) || !RISK_CODES.has(error.code)) return;
    const scope = typeof error.extensions.scope === 'string' ? error.extensions.scope : fallbackScope;
    this.refusals.inc({ code: error.code, scope });
  }

  breakerTripped(client: string): void {
    this.breakerTrips.inc({ client });
  }

  breakerRejected(client: string, source: 'answer' | 'stream', count: number): void {
    this.breakerRejects.inc({ client, source }, count);
  }

  killed(report: KillReport): void {
    this.killRuns.inc({ scope: report.scope });
    const { scope } = report;
    this.killOrders.inc({ scope, outcome: 'cancelled' }, report.cancelled.length);
    this.killOrders.inc({ scope, outcome: 'filled_first' }, report.filledFirst.length);
    this.killOrders.inc({ scope, outcome: 'closed' }, report.closed.length);
    this.killOrders.inc({ scope, outcome: 'unresolved' }, report.unresolved.length);
  }
}
