import { randomUUID } from 'node:crypto';

import { Inject, Injectable } from '@nestjs/common';
import { type IdempotencyRecord, JOURNAL_DATABASE, type JournalDatabase } from '@lib/journal';
import { RetailOrders } from '@lib/retail';

/** Look back this far before the call's intent (clock skew between the gateway and the upstream). */
const SKEW_MS = 60_000;

/** The terms of a retail create that identify its order on the upstream (the retail API has no client order id). */
interface Terms {
  marketSlug: string;
  intent: string;
  price?: { value: string };
  quantity?: number;
}

/** A retail order as the open-orders list shows it (upstream-facts "Retail shapes"). */
interface ListedOrder {
  id: string;
  marketSlug?: string;
  intent?: string;
  price?: { value?: string };
  quantity?: number;
  insertTime?: string;
  createTime?: string;
  state?: string;
}

/** What the finder concluded for one UNKNOWN retail create. */
export type RetailFinding = { found: ListedOrder } | { found: undefined; why: string };

/**
 * Finds the order an UNKNOWN retail create made (sent, answer lost) in the account's open orders
 * (`GET /v1/orders/open?slugs=<market>`, the retail API's only order listing; it has no order search
 * and no client order id). An order is taken only when it is the single candidate: same market, intent,
 * price and quantity, placed after the call's intent was recorded, not an order the journal already
 * knows, and no other unresolved create of the account has the same terms. Anything less is not a
 * finding: the call stays PENDING (an order that already filled or was cancelled is not listed).
 */
@Injectable()
export class RetailOrderFinder {
  constructor(
    @Inject(JOURNAL_DATABASE) private readonly store: JournalDatabase,
    private readonly orders: RetailOrders,
  ) {}

  /** One open-orders read per account and market covers every pending create there. */
  async find(records: readonly IdempotencyRecord[]): Promise<Map<IdempotencyRecord, RetailFinding>> {
    const findings = new Map<IdempotencyRecord, RetailFinding>();
    const groups = new Map<string, IdempotencyRecord[]>();
    for (const record of records) {
      const terms = termsOf(record);
      if (!terms || !record.participant) {
        findings.set(record, { found: undefined, why: 'no terms recorded' });
        continue;
      }
      const group = `${record.team}\u0000${record.participant}\u0000${terms.marketSlug}`;
      groups.set(group, [...(groups.get(group) ?? []), record]);
    }
    for (const group of groups.values())
      for (const [record, finding] of await this.findIn(group)) findings.set(record, finding);
    return findings;
  }

  private async findIn(records: IdempotencyRecord[]): Promise<Map<IdempotencyRecord, RetailFinding>> {
    const first = records[0]!;
    const slug = termsOf(first)!.marketSlug;
    const reply = await this.orders.open(
      { account: first.participant!, team: first.team, requestId: `resolve-${randomUUID()}` },
      { slugs: [slug] },
    );
    const listed = (JSON.parse(reply.text) as { orders?: ListedOrder[] }).orders ?? [];
    const known = await this.store.journal.knownOrderIds(listed.map((order) => order.id));
    const fresh = listed.filter((order) => !known.has(order.id));
    const findings = new Map<IdempotencyRecord, RetailFinding>();
    for (const record of records) {
      const terms = termsOf(record)!;
      const twins = records.filter((other) => sameTerms(termsOf(other)!, terms));
      const candidates = fresh.filter(
        (order) => matches(order, terms) && placedAt(order) >= record.createdAt.getTime() - SKEW_MS,
      );
      if (twins.length > 1)
        findings.set(record, { found: undefined, why: `${twins.length} unresolved creates with the same terms` });
      else if (candidates.length === 1) findings.set(record, { found: candidates[0]! });
      else
        findings.set(record, {
          found: undefined,
          why: candidates.length === 0 ? 'not among the open orders' : `${candidates.length} open orders match`,
        });
    }
    return findings;
  }
}

function termsOf(record: IdempotencyRecord): Terms | undefined {
  const request = record.request as Partial<Terms> | undefined;
  return request && typeof request.marketSlug === 'string' && typeof request.intent === 'string'
    ? (request as Terms)
    : undefined;
}

const sameDecimal = (a: string | undefined, b: string | undefined): boolean =>
  a === undefined || b === undefined ? a === b : Number(a) === Number(b);

function sameTerms(a: Terms, b: Terms): boolean {
  return (
    a.marketSlug === b.marketSlug &&
    a.intent === b.intent &&
    sameDecimal(a.price?.value, b.price?.value) &&
    a.quantity === b.quantity
  );
}

function matches(order: ListedOrder, terms: Terms): boolean {
  if (order.marketSlug !== terms.marketSlug || order.intent !== terms.intent) return false;
  if (terms.quantity !== undefined && Number(order.quantity) !== terms.quantity) return false;
  return terms.price === undefined || sameDecimal(order.price?.value, terms.price.value);
}

/** When the upstream placed the order (an order without a time is taken as recent: the other terms decide). */
function placedAt(order: ListedOrder): number {
  const time = Date.parse(order.insertTime ?? order.createTime ?? '');
  return Number.isNaN(time) ? Number.POSITIVE_INFINITY : time;
}
