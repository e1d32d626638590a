import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import { Clock } from '@lib/core';
import { ExchangeReports } from '@lib/exchange';
import type { IdempotencyRecord } from '@lib/journal';

import {
  CHANGE_FINAL_MS,
  CHANGE_SKEW_MS,
  type ChangeOutcome,
  type ReplaceItem,
  replaceIsComparable,
  replaceItemsOf,
  showsReplaceTerms,
  shownReplaceTerms,
} from './change-terms.js';
import { OrderSightings } from './order-sightings.js';

/** How an UNKNOWN replace's items were settled. */
export interface ReplaceFinding {
  outcomes: ChangeOutcome[];
  via: 'order stream' | 'drop copy' | 'order lookup';
}

/**
 * Resolves an UNKNOWN exchange batch replace (sent, answer lost) item by item, never resending it:
 * - from the order stream and the drop copy: the replaced order's new version (EXECUTION_TYPE_REPLACE,
 *   seen after the call's intent) showing the terms the item set → applied; no search spent;
 * - else by an order lookup (an order search by order id, one per pass from the resolver's slice of
 *   the search budget) made once the call is final (CHANGE_FINAL_MS after it was marked UNKNOWN): the
 *   order shows the item's terms → applied, other terms → not applied. An order the lookup does not
 *   find leaves the item undecided. A replace setting only flags or times cannot be told: it stays PENDING.
 * Items decided by a lookup are remembered (per instance) until the whole batch is decided.
 */
@Injectable()
export class ReplaceResolver {
  private readonly decided = new Map<string, Map<number, ChangeOutcome>>();

  constructor(
    private readonly sightings: OrderSightings,
    private readonly reports: ExchangeReports,
    private readonly clock: Clock,
  ) {}

  /** Every item settled from the stream (no search), else undefined. */
  fromStream(record: IdempotencyRecord): ReplaceFinding | undefined {
    const items = replaceItemsOf(record);
    if (!items || !record.participant) return undefined;
    const sources = new Set<'order stream' | 'drop copy'>();
    const outcomes: ChangeOutcome[] = [];
    for (const [index, item] of items.entries()) {
      const earlier = this.decided.get(recordKey(record))?.get(index);
      if (earlier) {
        outcomes.push(earlier);
        continue;
      }
      const seen = replaceIsComparable(item) ? this.streamVersion(record, item) : undefined;
      if (!seen) return undefined;
      sources.add(seen.source);
      outcomes.push({
        orderId: item.orderId,
        clordId: item.clordId,
        applied: true,
        state: typeof seen.order.state === 'string' ? seen.order.state : undefined,
      });
    }
    return { outcomes, via: sources.size === 1 && sources.has('drop copy') ? 'drop copy' : 'order stream' };
  }

  /** The order ids an UNKNOWN replace waits to see replaced on the stream. */
  awaitedOrders(record: IdempotencyRecord): string[] {
    return (replaceItemsOf(record) ?? []).map((item) => item.orderId);
  }

  /** True when the call is final: a lookup may conclude from the order's terms. */
  isFinal(record: IdempotencyRecord): boolean {
    return record.state === 'unknown' && this.clock.wallNow() - record.updatedAt.getTime() >= CHANGE_FINAL_MS;
  }

  /**
   * One order lookup (one search) for the first undecided item; the finding when every item is then
   * decided. Spends nothing (returns false) when the record cannot be decided by a lookup.
   */
  async lookupOne(record: IdempotencyRecord): Promise<{ spent: boolean; finding?: ReplaceFinding }> {
    const items = replaceItemsOf(record);
    if (!items || !record.participant || !this.isFinal(record)) return { spent: false };
    const decided = this.decided.get(recordKey(record)) ?? new Map<number, ChangeOutcome>();
    const index = items.findIndex((item, i) => !decided.has(i) && replaceIsComparable(item));
    if (index < 0) return { spent: false };
    const item = items[index]!;
    const order = await this.lookup(record, item.orderId);
    if (order) {
      decided.set(
        index,
        showsReplaceTerms(order, item)
          ? { orderId: item.orderId, clordId: item.clordId, applied: true, state: stateOf(order) }
          : { orderId: item.orderId, clordId: item.clordId, applied: false, why: notShown(order, item) },
      );
      this.decided.set(recordKey(record), decided);
    }
    if (decided.size < items.length) return { spent: true };
    this.forget(record);
    return { spent: true, finding: { outcomes: items.map((_, i) => decided.get(i)!), via: 'order lookup' } };
  }

  forget(record: IdempotencyRecord): void {
    this.decided.delete(recordKey(record));
  }

  private streamVersion(record: IdempotencyRecord, item: ReplaceItem) {
    const since = record.createdAt.getTime() - CHANGE_SKEW_MS;
    return this.sightings
      .replacesOf(record.participant!, item.orderId)
      .filter((version) => version.seenAt >= since)
      .find((version) => showsReplaceTerms(version.order, item));
  }

  private async lookup(record: IdempotencyRecord, orderId: string): Promise<Record<string, unknown> | undefined> {
    const reply = await this.reports.searchOrders(
      { team: record.team, participant: record.participant!, requestId: `resolve-${randomUUID()}` },
      { orderId, pageSize: 1 },
    );
    const body = JSON.parse(reply.text) as { order?: Record<string, unknown>[] };
    return (body.order ?? []).find((order) => order.id === orderId);
  }
}

const recordKey = (record: IdempotencyRecord): string => `${record.clientId}\u0000${record.key}`;

const stateOf = (order: Readonly<Record<string, unknown>>): string | undefined =>
  typeof order.state === 'string' ? order.state : undefined;

const notShown = (order: Readonly<Record<string, unknown>>, item: ReplaceItem): string =>
  `after the call was final, order ${item.orderId} shows ${shownReplaceTerms(order, item)}`;
