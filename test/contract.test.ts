import * as catalog from '@lib/catalog';
import * as exchange from '@lib/exchange';
import * as retail from '@lib/retail';
import fc from 'fast-check';
import type { z } from 'zod';

import { type Stack, api, json, startStack } from './support/stack.js';

import { MatchingEngine, type OrderRequest } from '../apps/sandbox/src/engine/index.js';
import * as sandboxCatalog from '../apps/sandbox/src/catalog/wire/catalog-query.wire.js';
import * as sandboxExchange from '../apps/sandbox/src/exchange/wire/exchange-request.wire.js';
import * as sandboxRetail from '../apps/sandbox/src/retail/wire/retail-request.wire.js';
import { candidates } from './support/zod-arbitrary.js';

// The contract between the gateway's request schemas (libs/*) and the sandbox's own (apps/sandbox/**/wire),
// written separately from the spec: whatever the gateway accepts, the sandbox accepts, so no request the
// gateway passes earns an upstream 400; equivalently, what the sandbox refuses the gateway refuses
// locally. Where the gateway refuses what the documents allow, the case is decided and listed below
// (apps/sandbox/README.md, "Decided cases"). Fixed seed: the corpus is the same on every run.

const SEED = 20_261_124;
const RUNS = 3_000;

interface Pair {
  op: string;
  gateway: z.ZodType;
  sandbox: z.ZodType;
  query?: boolean;
}

const PAIRS: Pair[] = [
  { op: 'exchange insertOrder', gateway: exchange.OrderRequestSchema, sandbox: sandboxExchange.OrderRequest },
  {
    op: 'exchange previewOrder',
    gateway: exchange.PreviewOrderRequestSchema,
    sandbox: sandboxExchange.PreviewOrderRequest,
  },
  {
    op: 'exchange batchInsert',
    gateway: exchange.BatchInsertRequestSchema,
    sandbox: sandboxExchange.BatchInsertRequest,
  },
  {
    op: 'exchange batchReplace',
    gateway: exchange.BatchReplaceRequestSchema,
    sandbox: sandboxExchange.BatchReplaceRequest,
  },
  {
    op: 'exchange searchOrders',
    gateway: exchange.OrderSearchRequestSchema,
    sandbox: sandboxExchange.OrderSearchRequest,
  },
  { op: 'exchange tradeStats', gateway: exchange.TradeStatsRequestSchema, sandbox: sandboxExchange.TradeStatsRequest },
  {
    op: 'exchange listInstruments',
    gateway: exchange.InstrumentListRequestSchema,
    sandbox: sandboxExchange.InstrumentListRequest,
  },
  {
    op: 'exchange orderBook',
    gateway: exchange.OrderBookQuerySchema,
    sandbox: sandboxExchange.OrderBookQuery,
    query: true,
  },
  { op: 'retail createOrder', gateway: retail.CreateOrderSchema, sandbox: sandboxRetail.CreateOrder },
  { op: 'retail previewOrder', gateway: retail.PreviewOrderSchema, sandbox: sandboxRetail.PreviewOrder },
  { op: 'retail cancelOrder', gateway: retail.CancelOrderSchema, sandbox: sandboxRetail.CancelOrder },
  { op: 'retail modifyOrder', gateway: retail.ModifyOrderSchema, sandbox: sandboxRetail.ModifyOrder },
  { op: 'retail cancelAll', gateway: retail.CancelAllOrdersSchema, sandbox: sandboxRetail.CancelAllOrders },
  { op: 'retail closePosition', gateway: retail.ClosePositionSchema, sandbox: sandboxRetail.ClosePosition },
  {
    op: 'retail openOrders',
    gateway: retail.OpenOrdersQuerySchema,
    sandbox: sandboxRetail.OpenOrdersQuery,
    query: true,
  },
  { op: 'retail positions', gateway: retail.PositionsQuerySchema, sandbox: sandboxRetail.PositionsQuery, query: true },
  {
    op: 'retail activities',
    gateway: retail.ActivitiesQuerySchema,
    sandbox: sandboxRetail.ActivitiesQuery,
    query: true,
  },
  { op: 'catalog events', gateway: catalog.EventsQuerySchema, sandbox: sandboxCatalog.EventsQuery, query: true },
  { op: 'catalog markets', gateway: catalog.MarketsQuerySchema, sandbox: sandboxCatalog.MarketsQuery, query: true },
  { op: 'catalog series', gateway: catalog.SeriesQuerySchema, sandbox: sandboxCatalog.SeriesQuery, query: true },
  { op: 'catalog search', gateway: catalog.SearchQuerySchema, sandbox: sandboxCatalog.SearchQuery, query: true },
  { op: 'catalog teams', gateway: catalog.TeamsQuerySchema, sandbox: sandboxCatalog.TeamsQuery, query: true },
  {
    op: 'catalog leagueEvents',
    gateway: catalog.SectionQuerySchema,
    sandbox: sandboxCatalog.SectionQuery,
    query: true,
  },
  { op: 'catalog byId', gateway: catalog.IdParamsSchema, sandbox: sandboxCatalog.IdParams, query: true },
  { op: 'catalog bySlug', gateway: catalog.SlugParamsSchema, sandbox: sandboxCatalog.SlugParams, query: true },
];

interface Verdicts {
  /** Accepted by the gateway, refused by the sandbox: an upstream 400 the gateway would earn. */
  gatewayLooser: string[];
  /** Refused by the gateway (first issue path), accepted by the sandbox: a guess stricter than the documents. */
  gatewayStricter: Set<string>;
  accepted: number;
  refused: number;
}

function judge(pair: Pair): Verdicts {
  const corpus = fc.sample(candidates(pair.gateway, pair.query), { seed: SEED, numRuns: RUNS });
  const verdicts: Verdicts = { gatewayLooser: [], gatewayStricter: new Set(), accepted: 0, refused: 0 };
  for (const input of corpus) {
    const gateway = pair.gateway.safeParse(input);
    const sandbox = pair.sandbox.safeParse(input);
    if (gateway.success) verdicts.accepted++;
    else verdicts.refused++;
    if (gateway.success && !sandbox.success)
      verdicts.gatewayLooser.push(
        `${pair.op} ${JSON.stringify(input).slice(0, 200)}: ${sandbox.error.issues[0].path.join('.')} ${sandbox.error.issues[0].message}`,
      );
    if (!gateway.success && sandbox.success) {
      for (const issue of gateway.error.issues)
        verdicts.gatewayStricter.add(
          `${pair.op}: ${issue.path.filter((part) => typeof part === 'string').join('.') || '(unknown key)'}`,
        );
    }
  }
  return verdicts;
}

const results = new Map(PAIRS.map((pair) => [pair.op, judge(pair)]));

describe('contract between the gateway and the sandbox request schemas', () => {
  it.each(PAIRS.map((pair) => pair.op))('%s: the corpus holds requests both accepted and refused', (op) => {
    const { accepted, refused } = results.get(op)!;
    expect(accepted).toBeGreaterThan(RUNS / 100);
    expect(refused).toBeGreaterThan(RUNS / 100);
  });

  it('whatever the gateway accepts, the sandbox accepts (what the sandbox refuses, the gateway refuses locally)', () => {
    expect([...results.values()].flatMap((v) => v.gatewayLooser)).toEqual([]);
  });

  it('lists the guesses where the gateway refuses what the documents allow (decided cases, see apps/sandbox/README.md)', () => {
    const stricter = [...results.values()].flatMap((v) => [...v.gatewayStricter]).sort();
    expect(stricter).toEqual(DECIDED_GATEWAY_STRICTER);
  });
});

/** A corpus query as a query string: arrays as repeated keys. */
function queryString(input: unknown): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(input as Record<string, string | string[]>))
    for (const item of [value].flat()) params.append(key, item);
  const text = params.toString();
  return text ? `?${text}` : '';
}

describe('contract through the gateway, over real sockets', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ sandbox: { catalog: { requestsPerSecondPerAddress: 'off' } } });
  });
  afterAll(() => stack.close());

  const E2E_RUNS = 40;
  const routes = [
    { op: 'catalog events', path: '/catalog/v1/events', counter: 'catalog.events', response: undefined },
    {
      op: 'retail activities',
      path: '/retail/v1/portfolio/activities',
      counter: 'retail.route.activities',
      response: retail.ActivitiesResponseSchema.strict(),
    },
  ];

  it.each(routes)(
    '$op: a request the gateway refuses is a local 400 with nothing sent; one it passes earns no upstream 400 and parses',
    async ({ op, path, counter, response }) => {
      const pair = PAIRS.find((p) => p.op === op)!;
      // An opaque cursor is valid only if upstream issued it: the one upstream 400 no gateway can foresee (README, decided cases).
      const corpus = fc
        .sample(candidates(pair.gateway, true), { seed: SEED, numRuns: E2E_RUNS })
        .filter((input) => !Object.hasOwn(input as object, 'cursor'));
      const outcomes = { local400: 0, passed: 0 };
      for (const input of corpus) {
        const before = stack.sandbox.state.counter(counter);
        const res = await api(stack)(path + queryString(input), { headers: { prefer: 'wait=5' } });
        const body = await json(res);
        if (!pair.gateway.safeParse(input).success) {
          expect({ input, status: res.status, sent: stack.sandbox.state.counter(counter) - before }).toEqual({
            input,
            status: 400,
            sent: 0,
          });
          outcomes.local400++;
          continue;
        }
        expect({ input, status: res.status, upstream: body.upstream }).toEqual({
          input,
          status: 200,
          upstream: undefined,
        });
        if (response) expect(response.safeParse(body).error?.issues ?? []).toEqual([]);
        outcomes.passed++;
      }
      expect(outcomes.local400).toBeGreaterThan(0);
      expect(outcomes.passed).toBeGreaterThan(0);
    },
  );
});

// Decided cases of order safety (upstream-facts.md, "Order safety"; apps/sandbox/README.md, "Decided
// cases"): where an earlier paragraph of the facts or an earlier sandbox disagreed, the exchange's guides
// decided. The sandbox must play them so, or the gateway's tests cannot see what the exchange does.
describe('decided cases of order safety, played by the sandbox engine', () => {
  const SMP_SYMBOL = 'aec-nfl-buf-kc-2026-11-22';
  const ALICE = 'firms/F/users/alice';
  const BOB = 'firms/F/users/bob';
  const CANCEL_RESTING = 'SELF_MATCH_PREVENTION_INSTRUCTION_CANCEL_RESTING' as const;
  const REMOVE_BOTH = 'SELF_MATCH_PREVENTION_INSTRUCTION_REMOVE_BOTH' as const;
  const order = (account: string, side: OrderRequest['side'], extra: Partial<OrderRequest> = {}): OrderRequest => ({
    symbol: SMP_SYMBOL,
    side,
    account,
    orderQty: 1,
    price: 45,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    ...extra,
  });
  let engine: MatchingEngine;
  beforeEach(() => {
    engine = new MatchingEngine({ clock: () => Date.parse('2026-11-22T18:00:00Z') });
  });

  it.each([
    [
      'two participants of one firm, same id, CANCEL_RESTING',
      BOB,
      { selfMatchPreventionId: 'd', selfMatchPreventionInstruction: CANCEL_RESTING },
      { selfMatchPreventionId: 'd' },
      'ORDER_STATE_FILLED',
      'ORDER_STATE_FILLED',
    ],
    [
      'two participants of one firm, same id, REMOVE_BOTH',
      BOB,
      { selfMatchPreventionId: 'd', selfMatchPreventionInstruction: REMOVE_BOTH },
      { selfMatchPreventionId: 'd' },
      'ORDER_STATE_FILLED',
      'ORDER_STATE_FILLED',
    ],
    ['one participant, no id', ALICE, {}, {}, 'ORDER_STATE_FILLED', 'ORDER_STATE_FILLED'],
    [
      'one participant, different ids',
      ALICE,
      { selfMatchPreventionId: 'd' },
      { selfMatchPreventionId: 'e' },
      'ORDER_STATE_FILLED',
      'ORDER_STATE_FILLED',
    ],
    [
      'one participant, same id, no instruction (REJECT_AGGRESSOR)',
      ALICE,
      { selfMatchPreventionId: 'd' },
      { selfMatchPreventionId: 'd' },
      'ORDER_STATE_REJECTED',
      'ORDER_STATE_NEW',
    ],
    [
      'one participant, same id, CANCEL_RESTING',
      ALICE,
      { selfMatchPreventionId: 'd', selfMatchPreventionInstruction: CANCEL_RESTING },
      { selfMatchPreventionId: 'd' },
      'ORDER_STATE_NEW',
      'ORDER_STATE_CANCELED',
    ],
    [
      'one participant, same id, REMOVE_BOTH',
      ALICE,
      { selfMatchPreventionId: 'd', selfMatchPreventionInstruction: REMOVE_BOTH },
      { selfMatchPreventionId: 'd' },
      'ORDER_STATE_CANCELED',
      'ORDER_STATE_CANCELED',
    ],
  ] as const)(
    'self-match prevention, %s',
    (_case, restingAccount, incomingExtra, restingExtra, incomingState, restingState) => {
      const resting = engine.insert(order(restingAccount, 'SIDE_SELL', restingExtra)).orderId;

      const incoming = engine.insert(order(ALICE, 'SIDE_BUY', incomingExtra));

      expect([incoming.order.state, engine.order(resting)?.state]).toEqual([incomingState, restingState]);
      if (restingState === 'ORDER_STATE_CANCELED') {
        expect(engine.lastExecution(resting)?.unsolicitedCancelReason).toBe(
          'UNSOLICITED_CXL_REASON_SELF_MATCH_PREVENTION',
        );
      }
    },
  );

  it.each([
    { verdict: 'accepted', state: 'ORDER_STATE_FILLED', finish: () => engine.insert(order(BOB, 'SIDE_SELL')) },
    {
      verdict: 'accepted',
      state: 'ORDER_STATE_CANCELED',
      finish: (id: string) => engine.cancel({ account: ALICE, orderId: id }),
    },
    { verdict: 'refused', state: 'ORDER_STATE_NEW', finish: () => undefined },
  ])(
    'a clordId whose order is $state is $verdict for a new order of the same account',
    ({ verdict, state, finish }) => {
      const first = engine.insert(order(ALICE, 'SIDE_BUY', { clordId: 'c-1' })).orderId;
      finish(first);
      expect(engine.order(first)?.state).toBe(state);

      const again = () => engine.insert(order(ALICE, 'SIDE_BUY', { clordId: 'c-1', price: 40 }));

      if (verdict === 'accepted')
        expect(again()).toMatchObject({ order: { state: 'ORDER_STATE_NEW', clordId: 'c-1' } });
      else expect(again).toThrow(expect.objectContaining({ code: 'DUPLICATE_CLORD_ID' }));
    },
  );
});

/**
 * Field by field, where the gateway refuses a request the documents allow; each family is decided in
 * apps/sandbox/README.md ("Decided cases"). A new entry here is a new guess to decide; a vanished one
 * means the gateway caught up with the documents.
 */
const DECIDED_GATEWAY_STRICTER: string[] = [
  'catalog bySlug: slug',
  'catalog events: categories',
  'catalog events: eventWeek',
  'catalog events: id',
  'catalog events: liquidityMax',
  'catalog events: liquidityMin',
  'catalog events: orderBy',
  'catalog events: seriesId',
  'catalog events: slug',
  'catalog events: tagSlug',
  'catalog events: volumeMax',
  'catalog events: volumeMin',
  'catalog leagueEvents: excludeEventId',
  'catalog leagueEvents: limit',
  'catalog markets: categories',
  'catalog markets: eventSlug',
  'catalog markets: id',
  'catalog markets: limit',
  'catalog markets: liquidityMax',
  'catalog markets: liquidityMin',
  'catalog markets: orderBy',
  'catalog markets: slug',
  'catalog markets: volumeMax',
  'catalog markets: volumeMin',
  'catalog search: query',
  'catalog search: seriesIds',
  'catalog series: limit',
  'catalog series: orderBy',
  'catalog series: recurrence',
  'catalog series: slug',
  'catalog teams: league',
  'catalog teams: teamIds',
  'exchange batchInsert: requests',
  'exchange batchInsert: requests.account',
  'exchange batchInsert: requests.clientAccountId',
  'exchange batchInsert: requests.clientParticipantId',
  'exchange batchInsert: requests.clordId',
  'exchange batchInsert: requests.orderQty',
  'exchange batchInsert: requests.quote',
  'exchange batchInsert: requests.selfMatchPreventionId',
  'exchange batchInsert: requests.sessionId',
  'exchange batchInsert: requests.symbol',
  'exchange batchInsert: requests.user',
  'exchange batchReplace: requests',
  'exchange batchReplace: requests.clordId',
  'exchange batchReplace: requests.minQty',
  'exchange batchReplace: requests.orderId',
  'exchange batchReplace: requests.orderQty',
  'exchange batchReplace: requests.price',
  'exchange batchReplace: requests.stopPrice',
  'exchange batchReplace: requests.symbol',
  'exchange insertOrder: account',
  'exchange insertOrder: cashOrderQty',
  'exchange insertOrder: clientAccountId',
  'exchange insertOrder: clientParticipantId',
  'exchange insertOrder: clordId',
  'exchange insertOrder: orderQty',
  'exchange insertOrder: price',
  'exchange insertOrder: quote',
  'exchange insertOrder: selfMatchPreventionId',
  'exchange insertOrder: sessionId',
  'exchange insertOrder: stopPrice',
  'exchange insertOrder: symbol',
  'exchange insertOrder: user',
  'exchange previewOrder: request.account',
  'exchange previewOrder: request.cashOrderQty',
  'exchange previewOrder: request.clientAccountId',
  'exchange previewOrder: request.clientParticipantId',
  'exchange previewOrder: request.clordId',
  'exchange previewOrder: request.minQty',
  'exchange previewOrder: request.price',
  'exchange previewOrder: request.quote',
  'exchange previewOrder: request.selfMatchPreventionId',
  'exchange previewOrder: request.sessionId',
  'exchange previewOrder: request.stopPrice',
  'exchange previewOrder: request.symbol',
  'exchange previewOrder: request.user',
  'exchange searchOrders: accounts',
  'exchange searchOrders: clientAccountId',
  'exchange searchOrders: clientParticipantId',
  'exchange searchOrders: clordId',
  'exchange searchOrders: orderId',
  'exchange searchOrders: pageSize',
  'exchange searchOrders: parentOrderId',
  'exchange searchOrders: symbol',
  'retail activities: (unknown key)',
  'retail activities: cursor',
  'retail activities: limit',
  'retail activities: marketSlug',
  'retail cancelAll: slugs',
  'retail cancelOrder: marketSlug',
  'retail closePosition: marketSlug',
  'retail closePosition: slippageTolerance.currentPrice.value',
  'retail createOrder: marketSlug',
  'retail createOrder: price.value',
  'retail createOrder: quantity',
  'retail createOrder: slippageTolerance.currentPrice.value',
  'retail modifyOrder: marketSlug',
  'retail modifyOrder: price.value',
  'retail modifyOrder: quantity',
  'retail openOrders: (unknown key)',
  'retail openOrders: slugs',
  'retail positions: (unknown key)',
  'retail positions: cursor',
  'retail positions: limit',
  'retail positions: market',
  'retail previewOrder: request.marketSlug',
  'retail previewOrder: request.price.value',
  'retail previewOrder: request.quantity',
];
