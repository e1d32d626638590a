import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG } from '@lib/core';

import { OpenOrders } from '../risk/open-orders.service.js';
import { RiskGate } from '../risk/risk-gate.service.js';
import type { TradingStateRecord } from '../risk/trading-state.js';
import { TradingStates } from '../risk/trading-states.service.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** One open-order count against its limit (held: undefined when the count cannot be read). */
export interface OpenOrderUse {
  scope: string;
  market?: string;
  held?: number;
  max: number;
}

/** The risk part of an ops snapshot: the states in force, each open-order count against its limit, and the teams an admin may halt. */
export interface RiskSnapshot {
  states: TradingStateRecord[];
  openOrders: OpenOrderUse[];
  teams: string[];
}

@Injectable()
export class RiskSnapshotService {
  private readonly teams: string[];

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly states: TradingStates,
    private readonly open: OpenOrders,
    private readonly gate: RiskGate,
  ) {
    this.teams = [...new Set(config.clients.map((client) => client.team))].sort();
  }

  async take(): Promise<RiskSnapshot> {
    const counts = this.gate.limits.openOrderCounts();
    const held = await this.open.held(counts.map((count) => count.key));
    return {
      states: this.states.list(),
      openOrders: counts.map(({ scope, market, max }, i) => ({
        scope,
        ...(market ? { market } : {}),
        ...(held[i] === undefined ? {} : { held: held[i] }),
        max,
      })),
      teams: this.teams,
    };
  }
}
