import type { DropCopyLog } from './drop-copy-log.js';

/** Operator faults on drop-copy delivery (at-least-once means clients must survive both). */
export interface DeliveryFaults {
  /** Each batch is held this long before it is written (order kept). */
  delayMs: number;
  /** Each batch is written twice. */
  duplicate: boolean;
}

/** The drop-copy service's state: the retained log it replays, the operator's delivery faults, the heartbeat. */
export class DropCopyFeed {
  readonly faults: DeliveryFaults = { delayMs: 0, duplicate: false };

  constructor(
    readonly log: DropCopyLog,
    readonly heartbeatMs: number,
  ) {}
}
