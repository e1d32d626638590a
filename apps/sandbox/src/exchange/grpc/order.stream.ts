import { randomUUID } from 'node:crypto';

import { status as GrpcStatus } from '@grpc/grpc-js';

import type { CancelRejectEvent, Execution, MatchingEngine } from '../../engine/index.js';
import { ServerStream, type StreamingCall } from './server-stream.js';
import type { StreamPool } from './stream-pool.js';
import { type ProtoRecord, executionMessage, orderMessage, timestamp } from './wire/stream-records.js';

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
  private readonly stopListening: (() => void)[] = [];
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
    this.stopListening.push(
      this.engine.on('execution', ({ execution }) => this.execution(execution)),
      this.engine.on('cancelReject', (event) => this.cancelReject(event)),
    );
    this.heartbeatEvery(this.terms.heartbeatMs, () => this.respond({ heartbeat: {} }));
  }

  protected onEnd(): void {
    for (const stop of this.stopListening) stop();
  }

  private carries(account: string, symbol: string): boolean {
    return this.terms.accounts.includes(account) && (this.terms.symbols.size === 0 || this.terms.symbols.has(symbol));
  }

  private cancelReject({ symbol, reject }: CancelRejectEvent): void {
    if (!this.carries(reject.account, symbol)) return;
    this.respond({
      update: { executions: [], cancelReject: { ...reject, transactTime: timestamp(reject.transactTime) } },
    });
  }

  private execution(execution: Execution): void {
    if (!this.carries(execution.order.account, execution.order.symbol)) return;
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
