import { randomUUID } from 'node:crypto';

import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@lib/core';
import { type IdempotencyRecord, JOURNAL_DATABASE, type JournalDatabase } from '@lib/journal';
import { RetailOrders } from '@lib/retail';

import { CHANGE_FINAL_MS } from './change-terms.js';
import { type ChannelOrder, RetailOrderChannel, type SeenOrder, callKey } from './retail-order-channel.js';

/** Look back this far before the call's intent for an order's own (upstream) time: clock skew between the gateway and the upstream. */
const SKEW_MS = 60_000;
/** An order first seen live on the channel counts when seen after the intent, less this (the database's clock against this instance's). */
const LOCAL_SKEW_MS = 1_000;
/** A candidate that is not finished yet is taken once seen this long (its fill, cancel or reject of the same moment has arrived by then). */
const SETTLE_MS = 1_000;
const FINISHED: ReadonlySet<string> = new Set([
  'ORDER_STATE_FILLED',
  'ORDER_STATE_CANCELED',
  'ORDER_STATE_REJECTED',
  'ORDER_STATE_EXPIRED',
]);
/** A close-position sells what is held: a long position with SELL_LONG, a short (NO) one with SELL_SHORT. */
const CLOSING_INTENTS: ReadonlySet<string> = new Set(['ORDER_INTENT_SELL_LONG', 'ORDER_INTENT_SELL_SHORT']);

/** What identifies the order of a retail create or close-position on the upstream (the retail API has no client order id). */
interface Terms {
  close: boolean;
  marketSlug: string;
  intent?: string;
  price?: { value: string };
  quantity?: number;
}

/** What the finder concluded for one UNKNOWN retail create or close-position. */
export type RetailFinding =
  /** Its order: the channel's record of it (with executions) or the open orders' listing. */
  | { kind: 'found'; order: ChannelOrder; executions: unknown[]; via: 'retail order channel' | 'retail open orders' }
  /** Proven: the channel, held without a gap from before the intent until the call was final, showed no such order. */
  | { kind: 'not placed'; why: string }
  | { kind: 'pending'; why: string };

/**
 * Finds the order an UNKNOWN retail create or close-position made (sent, answer lost). First from the
 * account's order channel (RetailOrderChannel: every order event since it was held, so an order that
 * already filled or was cancelled is found too), else in the open orders (`GET /v1/orders/open`, when
 * the channel was not held through the call, e.g. after a restart). An order is taken only when it is
 * the single candidate: same market and terms (a close: the market and a selling intent), placed
 * after the call's intent was recorded, not an order the journal shows another call made (a cancel of it
 * through the gateway does not make it another call's) nor one given to another call in the same pass,
 * and no other unresolved call of the account, of any team, has overlapping terms. No candidate proves
 * "not placed" only when the channel was held without a gap from before the intent and the call is
 * final; else it stays pending.
 */
@Injectable()
export class RetailOrderFinder {
  constructor(
    @Inject(JOURNAL_DATABASE) private readonly store: JournalDatabase,
    private readonly orders: RetailOrders,
    private readonly channel: RetailOrderChannel,
    private readonly clock: Clock,
  ) {}

  /** `read`: the open orders may be read (one read per account and market) where the channel decides nothing. */
  async find(records: readonly IdempotencyRecord[], read: boolean): Promise<Map<IdempotencyRecord, RetailFinding>> {
    const findings = new Map<IdempotencyRecord, RetailFinding>();
    // Grouped by account and market, whatever the team: teams that share an account share its orders, so
    // another team's unresolved call with the same terms could have made the order too.
    const groups = new Map<string, IdempotencyRecord[]>();
    // Orders given to a call in this pass: the journal shows them made only once the pass settles them.
    const given = new Set<string>();
    for (const record of records) {
      const terms = termsOf(record);
      if (!terms || !record.participant) {
        findings.set(record, { kind: 'pending', why: 'no terms recorded' });
        continue;
      }
      const group = `${record.participant}\u0000${terms.marketSlug}`;
      groups.set(group, [...(groups.get(group) ?? []), record]);
    }
    for (const group of groups.values())
      for (const [record, finding] of await this.findIn(group, read, given)) findings.set(record, finding);
    return findings;
  }

  private async findIn(
    records: IdempotencyRecord[],
    read: boolean,
    given: Set<string>,
  ): Promise<Map<IdempotencyRecord, RetailFinding>> {
    const first = records[0]!;
    const account = first.participant!;
    const slug = termsOf(first)!.marketSlug;
    const now = this.clock.wallNow();
    const evidence = this.channel.evidence(account);
    const seen = evidence.orders.filter((seen) => seen.order.marketSlug === slug);
    const made = await this.store.journal.madeOrderIds(seen.map((seen) => seen.order.id));
    const fresh = seen.filter((seen) => !made.has(seen.order.id));
    const findings = new Map<IdempotencyRecord, RetailFinding>();
    const undecided: IdempotencyRecord[] = [];
    for (const record of records) {
      const terms = termsOf(record)!;
      const intentAt = record.createdAt.getTime();
      // Sent by this instance: its own clock says when, exactly; else (a restart) the intent's record, less a margin for clock skew.
      const sentAt = this.channel.sentAt(account, callKey(record.clientId, record.key));
      const twins = records.filter((other) => overlap(termsOf(other)!, terms));
      if (twins.length > 1) {
        findings.set(record, {
          kind: 'pending',
          why: `${twins.length} unresolved calls of the account with overlapping terms`,
        });
        continue;
      }
      const candidates = fresh.filter(
        (seen) => !given.has(seen.order.id) && matches(seen.order, terms) && madeAfter(seen, intentAt, sentAt),
      );
      if (candidates.length > 1) {
        findings.set(record, { kind: 'pending', why: `${candidates.length} orders on the order channel match` });
        continue;
      }
      const [candidate] = candidates;
      if (candidate && this.channel.sending(account, slug) > 0) {
        findings.set(record, { kind: 'pending', why: 'another call of the account in that market is being sent' });
        continue;
      }
      if (candidate) {
        const settled = FINISHED.has(candidate.order.state ?? '') || now - candidate.firstSeenAt >= SETTLE_MS;
        if (settled) {
          given.add(candidate.order.id);
          findings.set(record, {
            kind: 'found',
            order: candidate.order,
            executions: candidate.executions,
            via: 'retail order channel',
          });
        } else findings.set(record, { kind: 'pending', why: 'its order was just seen on the order channel' });
        continue;
      }
      const covered =
        evidence.coveredSince !== undefined && evidence.coveredSince <= (sentAt ?? intentAt - LOCAL_SKEW_MS);
      const final = record.state === 'unknown' && now - record.updatedAt.getTime() >= CHANGE_FINAL_MS;
      if (covered && final) {
        findings.set(record, {
          kind: 'not placed',
          why: 'the account order channel, held without a gap from before the call until it was final, showed no order of it',
        });
        continue;
      }
      findings.set(record, {
        kind: 'pending',
        why: covered
          ? 'no order of it on the order channel yet; the call is not final'
          : 'the account order channel was not held through the call: its order is looked for among the open orders',
      });
      if (!covered) undecided.push(record);
    }
    if (read && undecided.length > 0)
      for (const [record, finding] of await this.fromOpenOrders(undecided, records, account, slug, given))
        findings.set(record, finding);
    return findings;
  }

  /** `GET /v1/orders/open?slugs=<market>`: finds an order that still works (an order that filled or was cancelled is not listed). */
  private async fromOpenOrders(
    undecided: IdempotencyRecord[],
    all: IdempotencyRecord[],
    account: string,
    slug: string,
    given: Set<string>,
  ): Promise<Map<IdempotencyRecord, RetailFinding>> {
    const reply = await this.orders.open(
      { account, team: undecided[0]!.team, requestId: `resolve-${randomUUID()}` },
      { slugs: [slug] },
    );
    const listed = (JSON.parse(reply.text) as { orders?: ChannelOrder[] }).orders ?? [];
    const made = await this.store.journal.madeOrderIds(listed.map((order) => order.id));
    const fresh = listed.filter((order) => !made.has(order.id));
    const findings = new Map<IdempotencyRecord, RetailFinding>();
    for (const record of undecided) {
      const terms = termsOf(record)!;
      if (all.some((other) => other !== record && overlap(termsOf(other)!, terms))) continue;
      const candidates = fresh.filter(
        (order) =>
          !given.has(order.id) && matches(order, terms) && placedAt(order) >= record.createdAt.getTime() - SKEW_MS,
      );
      if (candidates.length === 1) {
        given.add(candidates[0]!.id);
        findings.set(record, { kind: 'found', order: candidates[0]!, executions: [], via: 'retail open orders' });
      } else
        findings.set(record, {
          kind: 'pending',
          why:
            candidates.length === 0
              ? 'the order channel was not held through the call and no open order matches (an order that already finished is not listed)'
              : `${candidates.length} open orders match`,
        });
    }
    return findings;
  }
}

function termsOf(record: IdempotencyRecord): Terms | undefined {
  const request = record.request as (Partial<Omit<Terms, 'close'>> & { type?: unknown }) | undefined;
  if (!request || typeof request.marketSlug !== 'string') return undefined;
  if (record.operation === 'retail.closePosition') return { close: true, marketSlug: request.marketSlug };
  if (typeof request.intent !== 'string') return undefined;
  const { type, ...terms } = request as Omit<Terms, 'close'> & { type?: unknown };
  // A market order's price is not the order's (it fills at the book's): a probe's lost market buy that
  // carried one and filled was told ORDER_NOT_PLACED, its channel order never matching that price.
  if (type !== undefined && type !== 'ORDER_TYPE_LIMIT') delete terms.price;
  return { ...terms, close: false };
}

const sameDecimal = (a: string | undefined, b: string | undefined): boolean =>
  a === undefined || b === undefined ? a === b : Number(a) === Number(b);

/** Two calls one order could belong to: the same market, and (creates) the same terms, or (a close) a selling create. */
function overlap(a: Terms, b: Terms): boolean {
  if (a.marketSlug !== b.marketSlug) return false;
  if (a.close || b.close)
    return (a.close || CLOSING_INTENTS.has(a.intent ?? '')) && (b.close || CLOSING_INTENTS.has(b.intent ?? ''));
  return a.intent === b.intent && sameDecimal(a.price?.value, b.price?.value) && a.quantity === b.quantity;
}

function matches(order: ChannelOrder, terms: Terms): boolean {
  if (order.marketSlug !== terms.marketSlug) return false;
  if (terms.close) return CLOSING_INTENTS.has(order.intent ?? '');
  if (order.intent !== terms.intent) return false;
  if (terms.quantity !== undefined && Number(order.quantity) !== terms.quantity) return false;
  return terms.price === undefined || sameDecimal(order.price?.value, terms.price.value);
}

/** Made after the intent: first seen live after the send (this instance's clock) or the intent, or placed after it by the order's own time. */
function madeAfter(seen: SeenOrder, intentAt: number, sentAt: number | undefined): boolean {
  if (!seen.live) return placedAt(seen.order) >= intentAt - SKEW_MS;
  return seen.firstSeenAt >= (sentAt ?? intentAt - LOCAL_SKEW_MS);
}

/** When the upstream placed the order (an order without a time is taken as recent: the other terms decide). */
function placedAt(order: ChannelOrder): number {
  const time = Date.parse(order.insertTime ?? order.createTime ?? '');
  return Number.isNaN(time) ? Number.POSITIVE_INFINITY : time;
}
