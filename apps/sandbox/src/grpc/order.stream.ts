import { randomUUID } from 'node:crypto';

import { status as GrpcStatus } from '@grpc/grpc-js';

import type { Execution, MatchingEngine } from '../engine/index.js';
import { ServerStream, type StreamingCall } from './server-stream.js';
import type { StreamPool } from './stream-pool.js';
import { type ProtoRecord, executionMessage, orderMessage } from './wire/stream-records.js';

export interface OrderStreamTerms {
  firm: string;
  clientId: string;
  accounts: readonly string[];
  /** Empty: every symbol. */
  symbols: ReadonlySet<string>;
  maxStreams: number;
  heartbeatMs: number;
}

/**
 * OrderEntryAPI.CreateOrderSubscription: a snapshot of the open orders, then an update with the
 * executions of each engine operation, and heartbeats; every response names the stream's session.
 * No resume token: after a drop the client reconnects and takes a new snapshot (upstream-facts).
 */
export class OrderStream extends ServerStream<ProtoRecord> {
  readonly sessionId = randomUUID();
  private stopListening?: () => void;
  private pending: Execution[] = [];

  constructor(
    grpc: StreamingCall<unknown, ProtoRecord>,
    pool: StreamPool,
    private readonly engine: MatchingEngine,
    private readonly terms: OrderStreamTerms,
  ) {
    super(grpc, 'CreateOrderSubscription', terms.firm, terms.clientId, pool);
  }

  open(snapshotOnly: boolean): void {
    if (!this.join(this.terms.maxStreams)) return;
    const symbols = [...this.terms.symbols];
    const orders = this.terms.accounts.flatMap((account) => this.engine.openOrders(account, symbols));
    // Listening starts in the same tick as the snapshot is taken: no execution falls between.
    this.respond({ snapshot: { orders: orders.map(orderMessage) } });
    if (snapshotOnly) return this.end(GrpcStatus.OK, 'snapshot complete', 'snapshot_only');
    this.stopListening = this.engine.on('execution', ({ execution }) => this.execution(execution));
    this.heartbeatEvery(this.terms.heartbeatMs, () => this.respond({ heartbeat: {} }));
  }

  protected onEnd(): void {
    this.stopListening?.();
  }

  private execution(execution: Execution): void {
    const { account, symbol } = execution.order;
    if (!this.terms.accounts.includes(account)) return;
    if (this.terms.symbols.size > 0 && !this.terms.symbols.has(symbol)) return;
    this.pending.push(execution);
    if (this.pending.length > 1) return;
    // The executions of one engine operation arrive synchronously: they leave as one update.
    queueMicrotask(() => {
      const executions = this.pending;
      this.pending = [];
      this.respond({ update: { executions: executions.map(executionMessage) } });
    });
  }

  private respond(event: ProtoRecord): void {
    this.write({ sessionId: this.sessionId, ...event });
  }
}
