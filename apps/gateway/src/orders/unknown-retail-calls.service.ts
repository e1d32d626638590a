import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { GATEWAY_CONFIG, problemOf } from '@lib/core';
import { type IdempotencyRecord, JOURNAL_DATABASE, type JournalDatabase } from '@lib/journal';

import { FOUND_BY_TERMS } from './order-call.js';
import { OrderNotPlacedError } from './order-safety.errors.js';
import { RetailOrderChannel } from './retail-order-channel.js';
import { type RetailFinding, RetailOrderFinder } from './retail-order-finder.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/**
 * UNKNOWN retail creates and close-positions (sent, answer lost), resolved by RetailOrderFinder and
 * never resent: found → the key's answer is the upstream's create answer, `{id, executions}` (the
 * executions the order channel showed, so its state: filled, cancelled, rejected, …); proven not
 * placed → 409 ORDER_NOT_PLACED; else PENDING, with the reason readable at the lookup route. The
 * journal gets a `resolved` record. The account's order channel is held while one of its calls is
 * pending. Driven by UnknownOrders' passes (open orders may be read) and by every order event of the
 * channel (no read).
 */
@Injectable()
export class UnknownRetailCalls implements OnModuleInit {
  private readonly logger = new Logger('UnknownRetailCalls');
  private readonly staleMs: number;
  /** Why each pending call is still pending, by client and key (this instance's last pass). */
  private readonly pendingWhy = new Map<string, string>();
  /** The channel holds of accounts with pending calls. */
  private readonly holds = new Map<string, () => void>();
  private channelPass: Promise<void> | undefined;
  private channelPassAgain = false;
  /** The last pass left calls pending: only then does an order event of the channel start a pass (one database read). */
  private anyPending = false;

  constructor(
    @Inject(JOURNAL_DATABASE) private readonly store: JournalDatabase,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly finder: RetailOrderFinder,
    private readonly channel: RetailOrderChannel,
  ) {
    this.staleMs = config.journal.inFlightStaleMs;
  }

  onModuleInit(): void {
    this.channel.onOrder(() => {
      if (this.anyPending) this.fromChannel();
    });
  }

  /** Why this call is still PENDING, when this instance looked for it. */
  why(clientId: string, key: string): string | undefined {
    return this.pendingWhy.get(whyKey(clientId, key));
  }

  /** A pass that reads only the order channel (an order event, or a new UNKNOWN call). */
  fromChannel(): void {
    if (this.channelPass) {
      this.channelPassAgain = true;
      return;
    }
    this.channelPass = (async () => {
      do {
        this.channelPassAgain = false;
        await this.pass(false);
      } while (this.channelPassAgain);
    })()
      .catch((error: Error) =>
        this.logger.warn(`resolving retail calls from the order channel failed: ${error.message}`),
      )
      .finally(() => (this.channelPass = undefined));
  }

  /** One pass over the pending retail creates and close-positions; `read`: the open orders may be read where the channel decides nothing. */
  async pass(read: boolean): Promise<void> {
    const pending: IdempotencyRecord[] = [];
    for (const record of await this.store.keys.unresolved(FOUND_BY_TERMS, this.staleMs)) {
      const current = await this.store.keys.unknownNow(record);
      if (current) pending.push(current);
    }
    this.holdFor(pending);
    this.anyPending = pending.length > 0;
    const ids = new Set(pending.map((record) => whyKey(record.clientId, record.key)));
    for (const id of this.pendingWhy.keys()) if (!ids.has(id)) this.pendingWhy.delete(id);
    if (pending.length === 0) return;
    for (const [record, finding] of await this.finder.find(pending, read)) await this.settle(record, finding);
  }

  private holdFor(pending: readonly IdempotencyRecord[]): void {
    const accounts = new Set(pending.flatMap((record) => (record.participant ? [record.participant] : [])));
    for (const account of accounts) if (!this.holds.has(account)) this.holds.set(account, this.channel.hold(account));
    for (const [account, release] of this.holds)
      if (!accounts.has(account)) {
        release();
        this.holds.delete(account);
      }
  }

  private async settle(record: IdempotencyRecord, finding: RetailFinding): Promise<void> {
    const id = whyKey(record.clientId, record.key);
    if (finding.kind === 'pending') {
      this.pendingWhy.set(id, finding.why);
      return;
    }
    this.pendingWhy.delete(id);
    if (finding.kind === 'found') {
      const { order, executions, via } = finding;
      const answer = executions.length > 0 ? { id: order.id, executions } : { id: order.id };
      // Journaled first, then stored for the replay: an answer a client can read is always on the record.
      await this.store.journal.append({
        kind: 'resolved',
        orderId: order.id,
        clientId: record.clientId,
        team: record.team,
        data: { operation: record.operation, outcome: 'found', state: order.state, via, idempotencyKey: record.key },
      });
      await this.store.keys.resolve(record.clientId, record.key, 200, JSON.stringify(answer));
      return;
    }
    const problem = problemOf(new OrderNotPlacedError(record.operation, finding.why), undefined);
    await this.store.journal.append({
      kind: 'resolved',
      clientId: record.clientId,
      team: record.team,
      data: {
        operation: record.operation,
        outcome: 'not placed',
        why: finding.why,
        via: 'retail order channel',
        idempotencyKey: record.key,
      },
    });
    await this.store.keys.resolve(record.clientId, record.key, problem.status, JSON.stringify(problem));
  }
}

const whyKey = (clientId: string, key: string): string => `${clientId}\u0000${key}`;
