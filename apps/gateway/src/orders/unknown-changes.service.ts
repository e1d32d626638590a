import { Inject, Injectable, Logger } from '@nestjs/common';
import { GATEWAY_CONFIG, problemOf } from '@lib/core';
import { type IdempotencyRecord, JOURNAL_DATABASE, type JournalDatabase } from '@lib/journal';

import type { ChangeOutcome } from './change-terms.js';
import { type OrderOperation, givesOrder } from './order-call.js';
import { OrderChangeNotAppliedError } from './order-safety.errors.js';
import { ReplaceResolver } from './replace-resolver.js';
import { RetailChangeFinder } from './retail-change-finder.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** gRPC ABORTED: the item shape of a batch answer for a replace resolved as not applied. */
const GRPC_ABORTED = 10;

/**
 * UNKNOWN changes of existing orders (exchange batch replace, retail modify), resolved from the
 * order's terms (ReplaceResolver, RetailChangeFinder) and never resent. Settled, the key's answer is
 * what the client would have been answered: a replace's `{responses}` (an item not applied carries an
 * `error` like a refused item), a modify's `{}`, or 409 ORDER_CHANGE_NOT_APPLIED; the journal gets one
 * `resolved` record per order. Driven by UnknownOrders (its passes and its order stream pass).
 */
@Injectable()
export class UnknownChanges {
  private readonly logger = new Logger('UnknownChanges');
  private readonly staleMs: number;
  /** Participant+order ids of UNKNOWN replaces waiting for the order's new version on the stream. */
  private readonly awaited = new Set<string>();

  constructor(
    @Inject(JOURNAL_DATABASE) private readonly store: JournalDatabase,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly replaces: ReplaceResolver,
    private readonly modifies: RetailChangeFinder,
  ) {
    this.staleMs = config.journal.inFlightStaleMs;
  }

  /** True when a version of this order settles an UNKNOWN replace: UnknownOrders then runs a stream pass. */
  awaits(participant: string, orderId: string): boolean {
    return this.awaited.has(awaitedKey(participant, orderId));
  }

  /** The replaces settled from the order stream and drop copy (no search); returns how many still wait there. */
  async fromStream(): Promise<number> {
    let left = 0;
    for (const record of await this.store.keys.unresolved(['exchange.batchReplace'], this.staleMs))
      if (!(await this.replaceFromStream(record))) left++;
    return left;
  }

  /**
   * One pass: calls left in flight by a stopped instance become UNKNOWN; replaces settled from the
   * stream, else (when `mayLookup`) one order lookup; retail modifies from the order read. True when
   * an order search was spent.
   */
  async pass(mayLookup: boolean): Promise<boolean> {
    let spent = false;
    for (const record of await this.store.keys.unresolved(['exchange.batchReplace'], this.staleMs)) {
      const current = await this.store.keys.unknownNow(record);
      if (!current || (await this.replaceFromStream(current))) continue;
      if (!mayLookup || spent) continue;
      const lookup = await this.replaces.lookupOne(current).catch((error: Error) => {
        this.logger.warn(`order lookup for replace ${record.key} failed: ${error.message}`);
        return { spent: true, finding: undefined };
      });
      spent = lookup.spent;
      if (lookup.finding) await this.settle(current, lookup.finding.outcomes, lookup.finding.via);
    }
    for (const record of await this.store.keys.unresolved(['retail.modify'], this.staleMs)) {
      const current = await this.store.keys.unknownNow(record);
      if (!current) continue;
      const outcome = await this.modifies.find(current).catch((error: Error) => {
        this.logger.warn(`order read for modify ${record.key} failed: ${error.message}`);
        return undefined;
      });
      if (outcome) await this.settle(current, [outcome], 'retail order read');
    }
    return spent;
  }

  private async replaceFromStream(record: IdempotencyRecord): Promise<boolean> {
    const finding = this.replaces.fromStream(record);
    if (!finding) {
      for (const orderId of this.replaces.awaitedOrders(record))
        this.awaited.add(awaitedKey(record.participant ?? '', orderId));
      return false;
    }
    const current = await this.store.keys.unknownNow(record);
    if (current) await this.settle(current, finding.outcomes, finding.via);
    return true;
  }

  private async settle(record: IdempotencyRecord, outcomes: ChangeOutcome[], via: string): Promise<void> {
    this.replaces.forget(record);
    for (const outcome of outcomes) this.awaited.delete(awaitedKey(record.participant ?? '', outcome.orderId));
    const { status, body } = answerOf(record, outcomes);
    // Journaled first, then stored for the replay: an answer a client can read is always on the record.
    await this.store.journal.append(
      ...outcomes.map((outcome) => ({
        kind: 'resolved' as const,
        orderId: outcome.orderId,
        clordId: outcome.clordId,
        clientId: record.clientId,
        team: record.team,
        data: {
          operation: record.operation,
          givesOrder: givesOrder(record.operation as OrderOperation),
          outcome: outcome.applied ? 'applied' : 'not applied',
          ...(outcome.applied ? { state: outcome.state } : { why: outcome.why }),
          via,
          idempotencyKey: record.key,
        },
      })),
    );
    await this.store.keys.resolve(record.clientId, record.key, status, JSON.stringify(body));
  }
}

function answerOf(record: IdempotencyRecord, outcomes: ChangeOutcome[]): { status: number; body: unknown } {
  if (record.operation === 'exchange.batchReplace') {
    const responses = outcomes.map((outcome) =>
      outcome.applied
        ? { orderId: outcome.orderId }
        : {
            orderId: outcome.orderId,
            error: { code: GRPC_ABORTED, message: `not applied: ${outcome.why}`, details: [] },
          },
    );
    return { status: 200, body: { responses } };
  }
  const [outcome] = outcomes;
  if (!outcome || outcome.applied) return { status: 200, body: {} };
  const problem = problemOf(new OrderChangeNotAppliedError(outcome.orderId, outcome.why), undefined);
  return { status: problem.status, body: problem };
}

const awaitedKey = (participant: string, orderId: string): string => `${participant}\u0000${orderId}`;
