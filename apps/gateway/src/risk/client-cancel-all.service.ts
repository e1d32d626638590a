import { Injectable } from '@nestjs/common';

import { AdminRecord } from './admin-record.service.js';
import { KillSwitch } from './kill-switch.service.js';
import { RiskMetrics } from './risk.metrics.js';

/** What a brake that cancels one client's orders reports in its log line. */
export interface ClientCancelCounts {
  client: string;
  cancelled: number;
  filledFirst: number;
  closed: number;
  unresolved: number;
}

/**
 * The brakes the gateway runs for a client (cancel-on-disconnect, the dead-man's switch): every open
 * order of the client cancelled through the kill switch's priority lane, counted, and recorded in the
 * journal with what triggered it.
 */
@Injectable()
export class ClientCancelAll {
  constructor(
    private readonly killSwitch: KillSwitch,
    private readonly record: AdminRecord,
    private readonly metrics: RiskMetrics,
  ) {}

  async run(
    clientId: string,
    action: 'cancel-on-disconnect' | 'dead-man-switch',
    reason: string,
  ): Promise<ClientCancelCounts> {
    const scope = `client:${clientId}`;
    const report = await this.killSwitch.cancelAll(scope);
    this.metrics.killed(report);
    await this.record.ran({ action, scope, by: clientId, reason }, report);
    return {
      client: clientId,
      cancelled: report.cancelled.length,
      filledFirst: report.filledFirst.length,
      closed: report.closed.length,
      unresolved: report.unresolved.length,
    };
  }
}
