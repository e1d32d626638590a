import { randomUUID } from 'node:crypto';

import { Inject, Injectable, Logger } from '@nestjs/common';
import { DomainError, ErrorCode, GATEWAY_CONFIG } from '@lib/core';
import { EXCHANGE_BUDGETS, ExchangeHttpClient, ExchangeTrading } from '@lib/exchange';
import { JOURNAL_DATABASE, type JournalDatabase } from '@lib/journal';
import { PriorityLane } from '@lib/ratelimit';
import { RetailOrders } from '@lib/retail';
import { z } from 'zod';

import { OpenOrders } from './open-orders.service.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** The kill switch's own calls spend the shared budget under this name, not any team's share. */
const KILL_SWITCH_TEAM = 'gateway';
/** Cancels in flight at once: the cancel bucket paces them anyway; as many as the exchange's connection pool holds. */
const CANCEL_CONCURRENCY = 16;
/** Passes of read-open-orders-then-cancel (and tries of a retail cancel-all) before what is left is reported unresolved. */
const CANCEL_PASSES = 4;
/**
 * The pause before a pass or try that follows a failure, doubled each time (100, 200, 400 ms): what failed
 * may have failed for a moment (a budget decision that aged past `limits.maxDecisionAgeMs` on a busy CPU,
 * refused unsent; a lost answer), and tries back to back on a starved machine fail alike.
 */
const RETRY_PAUSE_MS = 100;

/**
 * The order-entering operations (journal records) whose calls a run waits out: an order whose insert was in
 * flight when the run read the open orders lands after its reads.
 */
const ORDER_ENTERING = [
  'exchange.insert',
  'exchange.batchInsert',
  'exchange.batchReplace',
  'retail.create',
  'retail.closePosition',
  'retail.modify',
] as const;
/**
 * For a latched state's run (any scope; a team's, the firm's and a market's always), calls claimed up to this long after the run began are
 * waited out too: an instance that had not yet heard of the halt (it reaches every instance within 250 ms)
 * may have passed one at its send-time check.
 */
const HALT_REACH_MARGIN_MS = 500;
/** How often the run asks the journal whether the calls it waits for have answered. */
const IN_FLIGHT_POLL_MS = 100;

const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS * 2 ** attempt));

const OpenOrdersSchema = z.looseObject({
  orders: z.array(z.looseObject({ id: z.string(), symbol: z.string().optional() })).default([]),
});
const CanceledSchema = z.looseObject({ canceledOrderIds: z.array(z.string()).default([]) });
/** As loose as OpenOrdersSchema: a kill switch needs an order's id and market only, whatever else its answer carries. */
const RetailOpenSchema = z.looseObject({
  orders: z.array(z.looseObject({ id: z.string(), marketSlug: z.string() })).default([]),
});

/** What a scope reaches; for one client's scope, also the participants and retail accounts other clients use too. */
interface Reach {
  participants: string[];
  accounts: string[];
  market?: string;
  /**
   * Whose order-entering calls in flight it waits for: the scope's clients, and (for a team) any call acting
   * for its participants and retail accounts, whose orders it takes too; every call: undefined (the firm's
   * scope, a market's).
   */
  callers?: { clientIds: string[]; owners: string[] };
  /** `given`: each shared order id already looked up in this run, and whether the client was given it. */
  client?: { id: string; shared: ReadonlySet<string>; given: Map<string, boolean> };
}

/** What `inFlightNow` found: the count, and what `waitOut` asks again. */
interface InFlight {
  count: number;
  cutoff: string;
  passed: boolean;
  callers: Reach['callers'];
  margin: number;
}

type Outcome = 'cancelled' | 'filledFirst' | 'closed' | 'unresolved';

export interface KilledOrder {
  orderId: string;
  /** The participant (exchange) or retail account it belonged to. */
  owner: string;
  symbol?: string;
  /** For an unresolved or closed one: what the cancel met. */
  problem?: string;
}

/** What a halt-and-cancel did, order by order. */
export interface KillReport {
  scope: string;
  cancelled: KilledOrder[];
  /** The cancel found the order closed already (409: filled, expired or cancelled first). */
  filledFirst: KilledOrder[];
  /**
   * The cancel's answer did not come (lost, timed out, refused for budget), and the order was not open
   * when the scope was read last: cancelled by this run or filled first, the run cannot tell which.
   * Nothing of them rests, so they are not unresolved.
   */
  closed: KilledOrder[];
  /** The cancel failed or could not be confirmed and the order was still open, or its owner unreadable, when re-read. */
  unresolved: KilledOrder[];
  /** Orders of the scope still open at the exchange when re-read after the cancels. */
  remainingOpen: number;
  /** Orders the run found open and set out to cancel (every pass). */
  targeted: number;
  /**
   * One client's scope: open orders of a participant or retail account other clients use too that the
   * journal does not show this client was given (another client's, or sent outside the gateway): left.
   */
  leftToOthers: number;
  /**
   * Order-entering calls of the scope in flight when the run began (on any instance, per the journal),
   * waited out before a last read-and-cancel pass: their orders land after the first reads.
   */
  awaitedInFlight: number;
  /** How long the run took, first read to last re-read. */
  durationMs: number;
}

/**
 * Halt-and-cancel's second half: every resting order of the scope's participants and retail accounts is
 * cancelled (exchange: one cancel per order, since the exchange publishes no batch or mass cancel route,
 * in the cancel bucket's priority lane (EXCHANGE_BUDGETS.priorityCancel): while a run sends,
 * this instance's ordinary cancels leave that slice of the bucket, so these never wait behind them, and are queued for budget up to
 * `risk.killSwitchWaitMs` rather than refused, never above the published limit; retail: cancel-all per
 * account, the retail API's mass cancel), then the open orders are
 * read again and whatever is left is reported unresolved. A team's, the firm's or a market's scope takes
 * every order of its participants and accounts. One client's scope (cancel-on-disconnect, the dead-man's
 * switch) takes, of a participant or retail account other clients use too, only the orders the journal
 * shows this client was given (provesOrder): a bot that dies does not take its neighbours' orders with it.
 */
@Injectable()
export class KillSwitch {
  private readonly logger = new Logger(KillSwitch.name);

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly trading: ExchangeTrading,
    private readonly http: ExchangeHttpClient,
    private readonly retail: RetailOrders,
    private readonly open: OpenOrders,
    private readonly lane: PriorityLane,
    @Inject(JOURNAL_DATABASE) private readonly journal: JournalDatabase,
  ) {}

  /**
   * Runs in the priority lane: while it sends, this instance's ordinary cancels leave the lane's slice of the cancel bucket to it.
   * `latched`: the run of a halt latched for the scope (an admin's halt-and-cancel), which other instances
   * hear of a little later: their calls claimed meanwhile are waited out too (HALT_REACH_MARGIN_MS). A team's,
   * the firm's or a market's run always waits them out; one client's run that no halt latched (its
   * cancel-on-disconnect, its dead-man's switch) does not, since that client may go on trading.
   */
  cancelAll(scope: string, latched = false): Promise<KillReport> {
    return this.lane.during(() => this.cancelEverything(scope, latched));
  }

  private async cancelEverything(scope: string, latched: boolean): Promise<KillReport> {
    const started = performance.now();
    const reach = this.reach(scope);
    const { participants, accounts, market } = reach;
    const targeted = new Set<string>();
    const outcomes = new Map<string, { kind: Outcome; order: KilledOrder }>();
    const unreadable: KilledOrder[] = [];
    const leftToOthers = new Set<string>();
    // Exchange participants, and the retail accounts this scope shares with other clients (their orders
    // are cancelled one by one, cancel-all would take the neighbours'): read, cancel each, read again.
    const shared = accounts.filter((account) => reach.client?.shared.has(`retail:${account}`));
    const readOpen = async () =>
      this.theClients(
        reach,
        (
          await Promise.all([
            ...participants.map((participant) =>
              this.openOf(participant, market).catch((error: unknown) =>
                this.unreadable(participant, error, unreadable),
              ),
            ),
            ...shared.map((account) =>
              this.retailOpenOf(account, market).catch((error: unknown) =>
                this.unreadable(`retail:${account}`, error, unreadable),
              ),
            ),
          ])
        ).flat(),
        leftToOthers,
      );
    // Asked before the first read (a call in flight now may land after every read of this run), and not
    // waited for before the cancels: they never wait on the journal.
    const inFlightAsked = this.inFlightNow(reach, latched);
    let left = await readOpen();
    // Followed up: what a pass could not cancel (a cancel refused for budget, an order entered as the halt
    // landed) gets another pass, and an owner whose open orders could not be read is read again.
    const passes = async () => {
      for (let pass = 0; pass < CANCEL_PASSES && (left.length > 0 || unreadable.length > 0); pass++) {
        if (pass > 0 || unreadable.length > 0) await pause(pass);
        for (const order of left) targeted.add(order.orderId);
        await pool(
          left,
          CANCEL_CONCURRENCY,
          async (order) => void outcomes.set(order.orderId, await this.cancelOne(order)),
        );
        unreadable.length = 0;
        left = await readOpen();
      }
    };
    await passes();
    // The orders of calls that were in flight (found by a probe: 8 inserts slowed at the exchange landed after
    // a halt-and-cancel whose report said nothing was open, and rested): their calls are waited out, then
    // the scope is read and cancelled once more.
    const waited = await this.waitOut(await inFlightAsked, scope);
    if (waited.awaited > 0) {
      left = await readOpen();
      await passes();
    }
    const report: KillReport = {
      scope,
      cancelled: [],
      filledFirst: [],
      closed: [],
      unresolved: [...unreadable, ...waited.unresolved],
      remainingOpen: left.length,
      targeted: targeted.size,
      leftToOthers: 0,
      awaitedInFlight: waited.awaited,
      durationMs: 0,
    };
    for (const order of left)
      outcomes.set(order.orderId, {
        kind: 'unresolved',
        order: { ...order, problem: outcomes.get(order.orderId)?.order.problem ?? 'still open after the cancels' },
      });
    // A cancel without an answer, of an order the last read (of an owner it could read) no longer shows: closed.
    const stillOpen = new Set(left.map((order) => order.orderId));
    const unread = new Set(unreadable.map((problem) => problem.owner));
    for (const [orderId, outcome] of outcomes)
      if (outcome.kind === 'unresolved' && !stillOpen.has(orderId) && !unread.has(outcome.order.owner))
        outcome.kind = 'closed';
    for (const { kind, order } of outcomes.values()) report[kind].push(order);
    await Promise.all(report.closed.map((order) => this.open.closed(order.orderId)));
    await Promise.all(
      accounts
        .filter((account) => !shared.includes(account))
        .map((account) => this.cancelRetail(account, market, report)),
    );
    report.leftToOthers = leftToOthers.size;
    report.durationMs = Math.round(performance.now() - started);
    this.logger.warn(
      {
        killReport: {
          scope,
          cancelled: report.cancelled.length,
          filledFirst: report.filledFirst.length,
          closed: report.closed.length,
          unresolved: report.unresolved.length,
        },
      },
      `halt-and-cancel of ${scope} done`,
    );
    return report;
  }

  /** The participants and retail accounts a scope covers, the market it narrows to, and for a client's scope what it shares. */
  private reach(scope: string): Reach {
    const [kind, id] = scope.split(':', 2);
    const clients = this.config.clients.filter(
      (client) => kind === 'firm' || kind === 'market' || (kind === 'team' ? client.team === id : client.id === id),
    );
    const reach: Reach = {
      participants: [...new Set(clients.flatMap((client) => client.participants))],
      accounts: [...new Set(clients.flatMap((client) => client.retailAccounts))],
      ...(kind === 'market' ? { market: id } : {}),
    };
    if (kind === 'team')
      reach.callers = {
        clientIds: clients.map((client) => client.id),
        owners: [...reach.participants, ...reach.accounts],
      };
    // One client's scope takes only its own orders of what it shares: its own calls.
    if (kind === 'client') reach.callers = { clientIds: clients.map((client) => client.id), owners: [] };
    if (kind !== 'client' || id === undefined) return reach;
    const others = this.config.clients.filter((client) => client.id !== id);
    const shared = new Set([
      ...others.flatMap((client) => client.participants),
      ...others.flatMap((client) => client.retailAccounts.map((account) => `retail:${account}`)),
    ]);
    return { ...reach, client: { id, shared, given: new Map() } };
  }

  /**
   * The scope's order-entering calls in flight now, by the journal every instance writes: the count and the
   * cut-off (the journal's clock) that `waitOut` asks about. None when the journal cannot be read (logged:
   * the run then cancels what its reads find, as before).
   */
  private async inFlightNow(reach: Reach, latched: boolean): Promise<InFlight | undefined> {
    if (!this.config.journal.enabled) return undefined;
    // Before, a client's scope never had the margin: a client halted by an admin on one instance could have an
    // order claimed on another that had not heard yet, sent, and left resting after the run.
    const margin = reach.client && !latched ? 0 : HALT_REACH_MARGIN_MS;
    try {
      const now = await this.journal.keys.inFlightBefore(ORDER_ENTERING, reach.callers, undefined, margin);
      return { ...now, callers: reach.callers, margin };
    } catch (error) {
      this.logger.warn(`order-entering calls in flight unknown: the journal cannot be read (${String(error)})`);
      return undefined;
    }
  }

  /**
   * Waits until none of the calls counted by `inFlightNow` (and, for a latched state, none claimed within
   * HALT_REACH_MARGIN_MS after it) is in flight, at most `journal.inFlightStaleMs` (a call is sent within that
   * of its claim or never). `awaited`: whether there were any, so a last pass is owed.
   */
  private async waitOut(
    inFlight: InFlight | undefined,
    scope: string,
  ): Promise<{ awaited: number; unresolved: KilledOrder[] }> {
    if (inFlight === undefined) return { awaited: 0, unresolved: [] };
    const deadline = performance.now() + this.config.journal.inFlightStaleMs;
    let { count, passed } = inFlight;
    let awaited = count;
    while ((count > 0 || !passed) && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_POLL_MS));
      try {
        ({ count, passed } = await this.journal.keys.inFlightBefore(
          ORDER_ENTERING,
          inFlight.callers,
          inFlight.cutoff,
          inFlight.margin,
        ));
        awaited = Math.max(awaited, count);
      } catch (error) {
        this.logger.warn(`order-entering calls in flight unknown: the journal cannot be read (${String(error)})`);
        return { awaited: Math.max(awaited, 1), unresolved: [] };
      }
    }
    if (count === 0) return { awaited, unresolved: [] };
    this.logger.warn(`halt-and-cancel of ${scope}: ${count} order-entering calls still in flight`);
    return {
      awaited,
      unresolved: [{ orderId: '*', owner: scope, problem: `${count} order-entering calls still in flight` }],
    };
  }

  /**
   * For one client's scope: of the shared owners' orders, those given to the client; the others go to
   * `left`. An order found given is not looked up again in the run; one not (yet) given is, on each pass:
   * the answer of a call in flight when the run began is journaled later (a probe: a dead bot's insert
   * whose answer was on its way rested on a shared participant after its dead-man's switch, cached as not
   * given on the first pass though the run then waited for that very call).
   */
  private async theClients(reach: Reach, orders: KilledOrder[], left: Set<string>): Promise<KilledOrder[]> {
    const { client } = reach;
    if (!client) return orders;
    const unknown = orders
      .filter((order) => client.shared.has(order.owner) && client.given.get(order.orderId) !== true)
      .map((order) => order.orderId);
    if (unknown.length > 0) {
      // Not kept while the journal cannot be read: the next pass asks again.
      const given = await this.givenTo(client.id, unknown);
      if (given) for (const orderId of unknown) client.given.set(orderId, given.has(orderId));
    }
    return orders.filter((order) => {
      const own = !client.shared.has(order.owner) || client.given.get(order.orderId) === true;
      // An order left on a pass whose journal read failed is the client's after all once a later read names it.
      if (own) left.delete(order.orderId);
      else left.add(order.orderId);
      return own;
    });
  }

  /** The order ids the journal shows this client was given; undefined while it cannot be read (those orders are left, and logged). */
  private async givenTo(clientId: string, orderIds: string[]): Promise<Set<string> | undefined> {
    try {
      const records = await this.journal.journal.givenRecords(orderIds);
      return new Set(
        records.flatMap((record) => (record.clientId === clientId && record.orderId ? [record.orderId] : [])),
      );
    } catch (error) {
      this.logger.warn(
        `orders of participants ${clientId} shares with other clients left: the journal that names their senders cannot be read (${String(error)})`,
      );
      return undefined;
    }
  }

  /** A retail account's open orders (of the market, when the scope names one). */
  private async retailOpenOf(account: string, market: string | undefined): Promise<KilledOrder[]> {
    const reply = await this.retail.open(this.retailCaller(account), market === undefined ? {} : { slugs: [market] });
    return RetailOpenSchema.parse(JSON.parse(reply.text || '{}')).orders.map((order) => ({
      orderId: order.id,
      owner: `retail:${account}`,
      symbol: order.marketSlug,
    }));
  }

  private async openOf(participant: string, market: string | undefined): Promise<KilledOrder[]> {
    // The read its cancels cannot go without: never refused by the bulkheads, as the cancels are not.
    const reply = await this.trading.openOrders(this.caller(participant), true);
    const { orders } = OpenOrdersSchema.parse(JSON.parse(reply.text));
    return orders
      .filter((order) => market === undefined || order.symbol === market)
      .map((order) => ({ orderId: order.id, owner: participant, symbol: order.symbol }));
  }

  private unreadable(participant: string, error: unknown, into: KilledOrder[]): KilledOrder[] {
    into.push({
      orderId: '*',
      owner: participant,
      problem: `open orders unreadable: ${problemCode(error)}`,
    });
    return [];
  }

  private async cancelOne(order: KilledOrder): Promise<{ kind: Outcome; order: KilledOrder }> {
    try {
      const account = retailAccountOf(order.owner);
      if (account !== undefined)
        await this.retail.cancel(this.retailCaller(account), order.orderId, { marketSlug: order.symbol ?? '' });
      else
        await this.http.send({
          ...this.caller(order.owner),
          method: 'POST',
          path: '/v1/trading/orders/cancel',
          body: { orderId: order.orderId },
          budget: EXCHANGE_BUDGETS.priorityCancel,
          preferWaitMs: this.config.risk.killSwitchWaitMs,
        });
      await this.open.closed(order.orderId);
      return { kind: 'cancelled', order };
    } catch (error) {
      if (error instanceof DomainError && error.code === ErrorCode.UPSTREAM_CONFLICT) {
        await this.open.closed(order.orderId);
        return { kind: 'filledFirst', order };
      }
      return {
        kind: 'unresolved',
        order: { ...order, problem: problemCode(error) },
      };
    }
  }

  /**
   * A retail account no other client uses: the retail API's cancel-all. Sent again (up to CANCEL_PASSES
   * tries, paused as the passes are) when it fails, whatever the failure: a cancel-all sent twice cancels nothing twice, and one whose
   * answer was lost may have cancelled what the next one then finds gone.
   */
  private async cancelRetail(account: string, market: string | undefined, report: KillReport): Promise<void> {
    const owner = `retail:${account}`;
    let problem = '';
    for (let attempt = 0; attempt < CANCEL_PASSES; attempt++) {
      if (attempt > 0) await pause(attempt - 1);
      try {
        const reply = await this.retail.cancelAll(
          this.retailCaller(account),
          market === undefined ? {} : { slugs: [market] },
        );
        for (const orderId of CanceledSchema.parse(JSON.parse(reply.text || '{}')).canceledOrderIds) {
          report.cancelled.push({ orderId, owner, ...(market ? { symbol: market } : {}) });
          await this.open.closed(orderId);
        }
        return;
      } catch (error) {
        problem = problemCode(error);
      }
    }
    report.unresolved.push({ orderId: '*', owner, problem });
  }

  private caller(participant: string) {
    return { team: KILL_SWITCH_TEAM, requestId: `kill-${randomUUID()}`, participant };
  }

  private retailCaller(account: string) {
    return {
      account,
      team: KILL_SWITCH_TEAM,
      requestId: `kill-${randomUUID()}`,
      preferWaitMs: this.config.risk.killSwitchWaitMs,
    };
  }
}

/** The retail account of an order's owner (`retail:<account>`); undefined for an exchange participant. */
function retailAccountOf(owner: string): string | undefined {
  return owner.startsWith('retail:') ? owner.slice('retail:'.length) : undefined;
}

/** What a report names for a failed call: the gateway's problem code, else INTERNAL. */
function problemCode(error: unknown): string {
  return error instanceof DomainError ? error.code : 'INTERNAL';
}

/** Runs `work` over `items`, at most `limit` at once. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(lanes);
}
