import { randomUUID } from 'node:crypto';

import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock, GATEWAY_CONFIG, problemOf } from '@lib/core';
import { ExchangeReports, OrderUpdates } from '@lib/exchange';
import { type IdempotencyRecord, JOURNAL_DATABASE, type JournalDatabase, type JournalRecord } from '@lib/journal';

import { type DatedReply, ExchangeSearchWindow } from './exchange-search-window.js';
import { type OrderTerms, mayBeSent, sentTermsOf } from './insert-terms.js';
import { CREATING_OPERATIONS } from './order-call.js';
import { OrderNotPlacedError } from './order-safety.errors.js';
import { OrderSightings, type SightedOrder as FoundOrder } from './order-sightings.js';
import { UnknownChanges } from './unknown-changes.service.js';
import { UnknownRetailCalls } from './unknown-retail-calls.service.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** Look back this far before the oldest unknown order's intent, by the exchange's clock as its answers date it (their one-second resolution, drift since the last). */
const SKEW_MS = 60_000;
const PAGE_SIZE = 500;
/** A new UNKNOWN insert waits this long for the order stream (opened for it, snapshot first) before an order search is spent on it. */
const STREAM_GRACE_MS = 5_000;
const MAX_PAGES = 10;

/**
 * Resolves UNKNOWN orders (sent, answer lost) and orders a stopped instance left in flight, from the
 * exchange, by clordId: first from the exchange order stream (an order this instance saw there,
 * OrderSightings, settles its key at once and spends no search), else by one order search per participant covers every pending order of it (spec: 12
 * searches a minute; this instance spends at most `journal.resolveSearchesPerMinute` of them). Found:
 * the order's answer becomes the key's replayed answer. Not found: still pending, searched again (a
 * timer alone never turns it terminal). A complete search made `journal.notPlacedAfterMs` after the
 * call ended, whose window covers the call, that does not show it proves it was not placed (the exchange
 * places an order or rejects it unprocessed within 5 s): the key's answer is then 409 ORDER_NOT_PLACED,
 * as for a retail create; after an upstream 5xx answer (not a proof of anything: a load balancer's, while
 * the exchange ran the request) the key is freed for a resend instead. Changes of existing
 * orders (exchange replace, retail modify) are resolved by UnknownChanges, retail creates and
 * close-positions by UnknownRetailCalls, driven by the same passes.
 */
@Injectable()
export class UnknownOrders implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('UnknownOrders');
  private readonly intervalMs: number;
  private readonly staleMs: number;
  private readonly notPlacedAfterMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private lastPass = 0;
  private stopped = false;
  /** The last pass spent its searches on inserts and left replaces without a lookup: this one lets a replace have one. */
  private replaceLookupOwed = false;
  /** The participant+clordIds of unresolved orders this instance knows of: a sighting of one settles them from the stream. */
  private readonly awaiting = new Set<string>();
  private streamPass: Promise<void> | undefined;
  private streamPassAgain = false;
  private readonly orderStream: GatewayConfig['journal']['orderStream'];
  /** Releases this instance's hold on the exchange order stream (OrderUpdates.hold), while it has one. */
  private releaseStream: (() => void) | undefined;
  /** The exchange's clock, from its answers: an order search's window is set and checked by it. */
  private readonly window = new ExchangeSearchWindow();

  constructor(
    @Inject(JOURNAL_DATABASE) private readonly store: JournalDatabase,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly reports: ExchangeReports,
    private readonly sightings: OrderSightings,
    private readonly retail: UnknownRetailCalls,
    private readonly orderUpdates: OrderUpdates,
    private readonly clock: Clock,
    private readonly changes: UnknownChanges,
  ) {
    this.intervalMs = 60_000 / config.journal.resolveSearchesPerMinute;
    this.staleMs = config.journal.inFlightStaleMs;
    this.notPlacedAfterMs = config.journal.notPlacedAfterMs;
    this.orderStream = config.journal.enabled ? config.journal.orderStream : 'never';
  }

  /** After a restart, the orders left UNKNOWN or in flight are read back from the database and resolved. */
  onApplicationBootstrap(): void {
    if (this.orderStream === 'always') this.releaseStream = this.orderUpdates.hold();
    this.schedule(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.all([this.running, this.streamPass]);
    this.releaseStream?.();
  }

  /**
   * `while-unknown`: the order stream is held while an UNKNOWN insert awaits it, so that it is resolved
   * from the stream (its opening snapshot or a live execution) with no client subscribed and no search.
   */
  private holdStream(needed: boolean): void {
    if (this.orderStream !== 'while-unknown' || this.stopped) return;
    if (needed && !this.releaseStream) this.releaseStream = this.orderUpdates.hold();
    else if (!needed && this.releaseStream) {
      this.releaseStream();
      this.releaseStream = undefined;
    }
  }

  /** A new UNKNOWN order: settled from the stream now when it was seen there, else searched as soon as the search budget slice allows. */
  wake(): void {
    this.fromStream();
    this.retail.fromChannel();
    this.schedule(Math.max(0, this.lastPass + this.intervalMs - this.clock.now()));
  }

  /** The order stream showed this order: when it is one being resolved, its key is settled from the stream. */
  sighted(participant: string, clordId: string): void {
    if (this.awaiting.has(awaitingKey(participant, clordId))) this.fromStream();
  }

  /** The order stream showed a new version of this order: when an UNKNOWN replace awaits it, it is settled from the stream. */
  replaced(participant: string, orderId: string): void {
    if (this.changes.awaits(participant, orderId)) this.fromStream();
  }

  /** One pass over the unresolved orders that settles those seen on the stream, and spends no search. */
  private fromStream(): void {
    if (this.stopped) return;
    if (this.streamPass) {
      this.streamPassAgain = true;
      return;
    }
    this.streamPass = (async () => {
      do {
        this.streamPassAgain = false;
        const pending = await this.store.keys.unresolved(CREATING_OPERATIONS, this.staleMs);
        let left = 0;
        for (const record of pending) if (!(await this.settleFromStream(record))) left++;
        left += await this.changes.fromStream();
        this.holdStream(left > 0);
      } while (this.streamPassAgain && !this.stopped);
    })()
      .catch((error: Error) =>
        this.logger.warn(`resolving unknown orders from the order stream failed: ${error.message}`),
      )
      .finally(() => (this.streamPass = undefined));
  }

  /** True when the record was settled (or found settled) from the stream; else it is awaited there. */
  private async settleFromStream(record: IdempotencyRecord): Promise<boolean> {
    const participant = record.participant;
    if (!participant || record.clordIds.length === 0) return false;
    const sighted = record.clordIds.map((clordId) => this.sightings.find(participant, clordId));
    // An older order under a reused clordId is not this call's: its own, once the stream shows it, takes its place.
    const orders = sighted.every((order): order is FoundOrder => order !== undefined)
      ? await this.ownOrders(
          record,
          sighted.map((order) => [order]),
        )
      : undefined;
    if (!orders) {
      for (const clordId of record.clordIds) this.awaiting.add(awaitingKey(participant, clordId));
      return false;
    }
    for (const clordId of record.clordIds) this.awaiting.delete(awaitingKey(participant, clordId));
    // A call that finished while it was taken up keeps its answer: nothing to settle, nothing to journal.
    if (record.state === 'in_flight' && !(await this.store.keys.markUnknown(record.clientId, record.key, 'silent')))
      return true;
    await this.settle(
      record,
      orders,
      orders.every((order) => order.source === 'drop copy') ? 'drop copy' : 'order stream',
    );
    return true;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.lastPass = this.clock.now();
    this.running = this.pass().catch((error: Error) =>
      this.logger.warn(`resolving unknown orders failed, retrying: ${error.message}`),
    );
    await this.running;
    this.running = undefined;
    this.schedule(this.intervalMs);
  }

  /** One pass: every unresolved order, one search per participant. */
  private async pass(): Promise<void> {
    await this.store.keys.purgeExpired();
    const readAt = this.clock.now(); // no later than the read: a record's age is its age at readAt or more
    const pending = await this.store.keys.unresolved(CREATING_OPERATIONS, this.staleMs);
    const groups = new Map<string, IdempotencyRecord[]>();
    for (const record of pending) {
      const group = `${record.team}\u0000${record.participant ?? ''}`;
      groups.set(group, [...(groups.get(group) ?? []), record]);
    }
    let searched = false;
    // Each part fails on its own: a participant's failing search must not hold up the others, nor the retail calls and changes.
    for (const records of groups.values())
      searched = (await this.attempt('unknown orders', () => this.resolveGroup(records, readAt), true)) || searched;
    this.fromStream();
    // Retail creates and close-positions: the account's order channel, else its open orders (one read per account and market).
    await this.attempt('retail calls', () => this.retail.pass(true), undefined);
    // Replaces and retail modifies; a replace's order lookup shares the searches' slice: one per pass, when inserts spent none (or every other pass).
    const mayLookup = !searched || this.replaceLookupOwed;
    const lookedUp = await this.attempt('changes', () => this.changes.pass(mayLookup), true);
    this.replaceLookupOwed = searched && !lookedUp;
  }

  /** Runs one part of a pass; a failure is logged (the next pass tries again) and counts as `failed`. */
  private async attempt<T>(what: string, part: () => Promise<T>, failed: T): Promise<T> {
    try {
      return await part();
    } catch (error) {
      this.logger.warn(`resolving ${what} failed, retrying: ${(error as Error).message}`);
      return failed;
    }
  }

  /** True when an order search was spent. */
  private async resolveGroup(all: IdempotencyRecord[], readAt: number): Promise<boolean> {
    const records: IdempotencyRecord[] = [];
    // A search is spent only on what the order stream did not show within its grace (it may have just been opened for these).
    const grace = this.orderStream === 'never' ? 0 : STREAM_GRACE_MS;
    for (const record of all)
      if (!(await this.settleFromStream(record)) && this.clock.wallNow() - record.updatedAt.getTime() >= grace)
        records.push(record);
    const [first] = records;
    if (!first?.participant) return false;
    const since = Math.min(...records.map((record) => this.window.start(readAt, claimAgeMs(record), SKEW_MS)));
    const { found, complete, dated } = await this.search(first.team, first.participant, since);
    for (const record of records) {
      if (record.state === 'in_flight' && !(await this.store.keys.markUnknown(record.clientId, record.key, 'silent')))
        continue; // finished meanwhile
      const { own, untaken } = await this.candidatesOf(
        record,
        record.clordIds.map((clordId) => found.get(clordId) ?? []),
      );
      const orders = await this.unclaimed(record, lastOfEach(own));
      if (orders) await this.settle(record, orders, 'order search');
      // An earlier order under a reused clordId, given to another call, is not this call's: it proves
      // nothing placed. One with other terms that no call was given proves nothing either way: it may be
      // this call's with a term the exchange set (a probe: a market-to-limit resting at its fill's price,
      // a cash order made immediate-or-cancel were told ORDER_NOT_PLACED, and a 502's key was freed and
      // its retry made a second order), so the call stays UNKNOWN. An order another unfinished call may
      // own settles neither call. A 5xx after the send proves nothing either (a load balancer's, while the
      // exchange ran it): the same proof frees its key.
      else if (
        complete &&
        this.pastStopgap(record) &&
        this.window.covers(dated, since, readAt, claimAgeMs(record)) &&
        untaken.every((orders) => orders.length === 0)
      )
        await (record.body === 'answered' ? this.notProcessed(record) : this.notPlaced(record));
    }
    return true;
  }

  /**
   * The call ended (UNKNOWN since) long enough before this pass that the exchange has placed the order
   * or rejected it unprocessed (its 5 s latency stopgap): a search now that does not show it proves it
   * was not placed. A call taken up from a stopped instance counts from when it was taken up.
   */
  private pastStopgap(record: IdempotencyRecord): boolean {
    return record.state === 'unknown' && record.ageMs !== undefined && record.ageMs >= this.notPlacedAfterMs;
  }

  /**
   * Every order the search shows since `since`, by clordId (a clordId the exchange took again names
   * several); `complete` when it read the last page (only then does a missing clordId prove anything);
   * `dated`, its first answer, tells by the exchange's clock whether the window began before a call.
   */
  private async search(
    team: string,
    participant: string,
    since: number,
  ): Promise<{ found: Map<string, FoundOrder[]>; complete: boolean; dated: DatedReply }> {
    const found = new Map<string, FoundOrder[]>();
    let pageToken: string | undefined;
    let dated: DatedReply | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const reply = await this.reports.searchOrders(
        { team, participant, requestId: `resolve-${randomUUID()}` },
        { startTime: new Date(since).toISOString(), pageSize: PAGE_SIZE, ...(pageToken ? { pageToken } : {}) },
      );
      this.window.observe(reply);
      dated ??= reply;
      const body = JSON.parse(reply.text) as { order?: FoundOrder[]; nextPageToken?: string };
      for (const order of body.order ?? [])
        if (order.clordId)
          found.set(order.clordId, [...(found.get(order.clordId) ?? []), { ...order, terms: { ...order } }]);
      pageToken = body.nextPageToken;
      if (!pageToken) break;
    }
    return { found, complete: !pageToken, dated: dated! };
  }

  /** The call's order for each of its clordIds (see candidatesOf), or undefined while one has none left. */
  private async ownOrders(
    record: IdempotencyRecord,
    candidates: readonly (readonly FoundOrder[])[],
  ): Promise<FoundOrder[] | undefined> {
    if (candidates.some((orders) => orders.length === 0)) return undefined;
    return this.unclaimed(record, lastOfEach((await this.candidatesOf(record, candidates)).own));
  }

  /**
   * The orders, unless another unfinished call (in flight or UNKNOWN, of any team or client) on the
   * participant sent one's clordId with terms that order shows too: either call may own it, and an
   * outcome is never a guess, so neither is settled from it (both stay pending, as a retail create does
   * beside another unresolved call with overlapping terms). A call whose terms are not journaled may
   * own any order of its clordId.
   */
  private async unclaimed(
    record: IdempotencyRecord,
    orders: FoundOrder[] | undefined,
  ): Promise<FoundOrder[] | undefined> {
    if (!orders || !record.participant) return orders;
    const others = (
      await this.store.keys.unfinishedWith(record.participant, record.clordIds, CREATING_OPERATIONS)
    ).filter((other) => other.clientId !== record.clientId || other.key !== record.key);
    for (const other of others) {
      const sent = await this.sentTerms(other);
      const contested = orders.some(
        (order) => other.clordIds.includes(order.clordId) && mayBeSent(order.terms, sent.get(order.clordId)),
      );
      if (contested) return undefined;
    }
    return orders;
  }

  /** What the call sent for each clordId (its journaled intent); a clordId missing has unknown terms. */
  private async sentTerms(record: IdempotencyRecord): Promise<Map<string, OrderTerms>> {
    return sentTermsOf(await this.store.journal.intents(record.clientId, record.key, record.clordIds));
  }

  /**
   * The candidates (per clordId) the stream or a search shows that may be the call's own: an order the
   * journal shows given to another call (an answer or a resolution naming it, another client's, or the
   * client's own written before this call was) is not this call's. The
   * exchange takes a closed order's clordId again, so a pending call's clordId can name the client's earlier
   * order (settled with it, the call was told its new order was that one) or another client's on the same
   * participant. This call's own records (an answer written before its instance died, a resolution whose
   * key was not written) come after its claim, and leave the order to it. An order whose terms are not
   * the ones the call sent (its journaled intent) is not taken as the call's (`own`): another team may
   * send the same clordId on the participant, and the exchange holds only one open order per clordId.
   * `untaken` keeps those too: while one is there, the call is not proven unplaced.
   */
  private async candidatesOf(
    record: IdempotencyRecord,
    candidates: readonly (readonly FoundOrder[])[],
  ): Promise<{ own: FoundOrder[][]; untaken: FoundOrder[][] }> {
    const ids = candidates.flat().map((order) => order.id);
    if (ids.length === 0) return { own: candidates.map(() => []), untaken: candidates.map(() => []) };
    const [intents, given] = await Promise.all([
      this.store.journal.intents(record.clientId, record.key, record.clordIds),
      this.store.journal.givenRecords(ids),
    ]);
    const sent = sentTermsOf(intents);
    const ownClient = given.filter((proof) => proof.clientId === record.clientId);
    // Before the call's claim by the journal's own order: a record's `at` is its instance's wall clock, not the database's.
    const intent = ownClient.length === 0 ? undefined : intents[0]?.seq;
    const earlier = (proof: JournalRecord): boolean =>
      intent === undefined ? Date.parse(proof.at) < record.createdAt.getTime() : proof.seq < intent;
    const taken = new Set(
      given.filter((proof) => proof.clientId !== record.clientId || earlier(proof)).map((proof) => proof.orderId),
    );
    const untaken = candidates.map((orders) => orders.filter((order) => !taken.has(order.id)));
    const own = untaken.map((orders, index) =>
      orders.filter((order) => mayBeSent(order.terms, sent.get(record.clordIds[index] ?? order.clordId))),
    );
    return { own, untaken };
  }

  private async settle(
    record: IdempotencyRecord,
    orders: FoundOrder[],
    via: 'order stream' | 'drop copy' | 'order search',
  ): Promise<void> {
    for (const order of orders) this.awaiting.delete(awaitingKey(record.participant ?? '', order.clordId));
    const answer =
      record.operation === 'exchange.insert'
        ? { orderId: orders[0]!.id }
        : { responses: orders.map((order) => ({ orderId: order.id })) };
    // Journaled first, then stored for the client's replay: an answer a client can read is always on the
    // record (a journal that cannot be written leaves the call UNKNOWN for the next pass). Two instances
    // settling the same call may each journal what they found; the key is resolved once.
    await this.store.journal.append(
      ...orders.map((order) => ({
        kind: 'resolved' as const,
        clordId: order.clordId,
        orderId: order.id,
        clientId: record.clientId,
        team: record.team,
        data: { outcome: 'found', state: order.state, via },
      })),
    );
    await this.store.keys.resolve(record.clientId, record.key, 200, JSON.stringify(answer));
  }

  /**
   * Resolved as the retail calls' "not placed" is: the key's answer is 409 ORDER_NOT_PLACED, and nothing
   * is sent again (placing the order takes a new key).
   */
  private async notPlaced(record: IdempotencyRecord): Promise<void> {
    const via = `order search ${Math.floor((record.ageMs ?? 0) / 1000)} s after the call ended`;
    await this.journalNoOrder(record, 'not placed', via);
    const problem = problemOf(
      new OrderNotPlacedError(record.operation, `a complete ${via} shows no order with its clordId`),
      undefined,
    );
    await this.store.keys.resolve(record.clientId, record.key, problem.status, JSON.stringify(problem));
  }

  private async notProcessed(record: IdempotencyRecord): Promise<void> {
    // Journaled before the key is released (a released key lets the client's resend through).
    const via = `order search ${Math.floor((record.ageMs ?? 0) / 1000)} s after an upstream 5xx answer`;
    await this.journalNoOrder(record, 'not processed', via);
    await this.store.keys.release(record.clientId, record.key);
  }

  /** One `resolved` record per clordId of a call that made no order; none of them is awaited any more. */
  private async journalNoOrder(record: IdempotencyRecord, outcome: string, via: string): Promise<void> {
    for (const clordId of record.clordIds) this.awaiting.delete(awaitingKey(record.participant ?? '', clordId));
    await this.store.journal.append(
      ...record.clordIds.map((clordId) => ({
        kind: 'resolved' as const,
        clordId,
        clientId: record.clientId,
        team: record.team,
        data: { outcome, via },
      })),
    );
  }
}

/** How long before the read the call claimed its key, by the journal's clock (an interval, never an instant). */
const claimAgeMs = (record: IdempotencyRecord): number =>
  (record.ageMs ?? 0) + record.updatedAt.getTime() - record.createdAt.getTime();

/** The latest candidate of each clordId, or undefined while one has none. */
function lastOfEach(candidates: readonly (readonly FoundOrder[])[]): FoundOrder[] | undefined {
  const orders = candidates.map((orders) => orders.at(-1));
  return orders.every((order): order is FoundOrder => order !== undefined) ? orders : undefined;
}

const awaitingKey = (participant: string, clordId: string): string => `${participant}\u0000${clordId}`;
