import { SCOPES } from '@lib/core';

import { SYMBOL, limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import {
  type Operation,
  type Place,
  markedFields,
  operationsOf,
  propertyNames,
  sample,
  withField,
} from './support/openapi-requests.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Json, type Stack, api, json } from './support/stack.js';

/**
 * The two-client matrix of issue 14, generated from the gateway's own OpenAPI document: for every
 * exchange and retail route, a client allowed only alice and the retail account `main` tries bob and
 * `hedge` in every place an identity can go (the account header, every body, path and query field the
 * document marks `x-identity`). Every answer must be 403 or 404, nothing may reach the upstream for bob
 * or hedge, and their orders must be unchanged. A route added later is covered without editing this.
 */

const ALICE_ONLY = 'alice-only';
const RETAIL_SLUG = 'aec-nfl-buf-kc-2026-11-22';
/**
 * A request field or parameter whose name says it may name a principal (a participant, user, firm, account,
 * funding account, session, or any id) must carry an `x-identity` mark, so the gateway checks it, or be
 * listed below with the reason it needs none. A new field of that look that is neither fails the guard.
 */
const PRINCIPAL_NAME = /account|user|participant|firm|owner|trader|member|principal|funding|session|^id$/i;
/** ... and any id (`orderId`, `client_id`). */
const ANY_ID = /Id$|_id$/;
/**
 * Fields that look like a principal but name none the caller could take from another (with the reason).
 * Each reason holds only beside a marked field of the `beside` kind in the same request: the mark that
 * confines what the unmarked field can reach (a search filter inside the bound `accounts`, a tag of an
 * order booked to the bound `account`).
 */
const NOT_IDENTITIES: Record<string, { reason: string; beside?: string }> = {
  orderId: { reason: 'a search filter: the search is narrowed to the bound accounts', beside: 'accounts' },
  clordId: {
    reason: "the client's own id of an order booked to, or resolved under, the bound account or order",
    beside: 'account|accounts|order',
  },
  crossId: { reason: 'a search filter inside the bound accounts', beside: 'accounts' },
  hostCrossId: { reason: 'a search filter inside the bound accounts', beside: 'accounts' },
  parentOrderId: { reason: 'a search filter inside the bound accounts', beside: 'accounts' },
  selfMatchPreventionId: {
    reason: "a tag of the new order, compared only with the bound account's own orders",
    beside: 'account',
  },
  sessionId: { reason: 'a tag of the new order booked to the bound account', beside: 'account' },
  productId: { reason: 'an instrument product, not a principal' },
};

interface Attempt {
  label: string;
  place: Place;
  request: SentRequest;
  /** The same request with the caller's own identity there: must not be refused for identity or shape. */
  control?: SentRequest;
}

interface SentRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

describe('two-client identity matrix, generated from /docs/json', () => {
  let stack: Stack;
  let doc: Json;
  let bobOrderId: string;
  let hedgeOrderId: string;
  let hedgeKeyId: string;

  let bobFundingAccountId: string;
  let aliceFundingAccountId: string;

  const foreignValue = (kind: string): unknown =>
    ({
      account: OTHER_PARTICIPANT,
      participant: OTHER_PARTICIPANT,
      accounts: [OTHER_PARTICIPANT],
      order: bobOrderId,
      'retail-order': hedgeOrderId,
      'funding-account': bobFundingAccountId,
    })[kind];
  const ownValue = (kind: string): unknown =>
    ({
      account: PARTICIPANT,
      participant: PARTICIPANT,
      accounts: [PARTICIPANT],
      'funding-account': aliceFundingAccountId,
    })[kind];

  /** The upstream counters that show a request went out: exchange operations, retail routes, retail signatures. */
  const upstreamCounters = (): Record<string, number> =>
    Object.fromEntries(
      Object.entries(stack.sandbox.state.counterSnapshot()).filter(([name]) =>
        /^(exchange\.calls\.|retail\.route\.|retail\.accepted\.key\.)/.test(name),
      ),
    );
  const changed = (before: Record<string, number>, after: Record<string, number>): string[] =>
    Object.keys({ ...before, ...after }).filter((name) => (before[name] ?? 0) !== (after[name] ?? 0));

  /** Bob's exchange orders and cash, and hedge's retail orders, as the sandbox holds them. */
  const victims = () => ({
    bobOrders: stack.sandbox.state.engine.searchOrders({ accounts: [OTHER_PARTICIPANT], pageSize: 1000 }).order,
    bobCash: stack.sandbox.state.engine.balance(OTHER_PARTICIPANT),
    hedgeOrders: stack.sandbox.state.engine.openOrders(hedgeKeyId),
  });

  beforeAll(async () => {
    stack = await startExchangeStack([
      {
        id: ALICE_ONLY,
        scopes: SCOPES.filter((scope) => scope !== 'admin'),
        participants: [PARTICIPANT],
        retailAccounts: ['main'],
      },
    ]);
    doc = await json(await fetch(`${stack.url}/docs/json`));
    const bob = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_SELL', 3, 90, { clordId: 'bob-resting' }),
      'all',
      { 'x-participant-id': OTHER_PARTICIPANT },
    );
    expect(bob.status).toBe(200);
    bobOrderId = (await json(bob)).orderId;
    const hedgeOrder = {
      marketSlug: RETAIL_SLUG,
      intent: 'ORDER_INTENT_BUY_LONG',
      type: 'ORDER_TYPE_LIMIT',
      price: { value: '0.03', currency: 'USD' },
      quantity: 1,
    };
    const hedge = await post(stack, '/retail/v1/orders', hedgeOrder, 'all', { 'x-retail-account': 'hedge' });
    expect(hedge.status).toBe(200);
    hedgeOrderId = (await json(hedge)).id;
    hedgeKeyId = stack.sandbox.keys.retail.find((key) => key.name === 'hedge')!.keyId;
    expect(stack.sandbox.state.engine.openOrders(hedgeKeyId)).toHaveLength(1);
    const checkoutOf = async (participant: string) =>
      (
        (
          await json(
            await api(stack)('/exchange/v1/funding/accounts', { headers: { 'x-participant-id': participant } }),
          )
        ).accounts as Json[]
      ).find((a) => a.processor === 'checkout').id as string;
    bobFundingAccountId = await checkoutOf(OTHER_PARTICIPANT);
    aliceFundingAccountId = await checkoutOf(PARTICIPANT);
  });
  afterAll(() => stack.close());

  /** Every attempt the document implies, each with its control where one can be sent. */
  function attempts(): Attempt[] {
    return operationsOf(doc).flatMap((op) => {
      const exchange = op.path.startsWith('/exchange/');
      const identityHeader = exchange ? 'x-participant-id' : 'x-retail-account';
      const params = op.parameters.filter((p) => p.in === 'path' || p.in === 'query');
      const placeOf = (p: Operation['parameters'][number]): Place | undefined =>
        p.schema?.['x-identity']
          ? { where: p.in as 'path' | 'query', name: p.name, kind: p.schema['x-identity'] }
          : undefined;
      const places: Place[] = [
        { where: 'header', name: identityHeader, kind: exchange ? 'account' : 'retail-account' },
        ...markedFields(op.body),
        ...params.flatMap((p) => placeOf(p) ?? []),
      ];
      const build = (place: Place, value: unknown): SentRequest => {
        const headers: Record<string, string> = place.where === 'header' ? { [place.name]: String(value) } : {};
        let path = op.path;
        const query = new URLSearchParams();
        for (const p of params) {
          const v =
            p.name === place.name && place.where === p.in
              ? value
              : p.in === 'path' || p.required
                ? sample(p.schema ?? {})
                : undefined;
          if (v === undefined) continue;
          if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(String(v)));
          else query.append(p.name, String(v));
        }
        const base = op.body ? sample(op.body) : undefined;
        const body = place.where === 'body' ? withField(base, place.name.split('.'), value) : base;
        return {
          method: op.method,
          path: query.size ? `${path}?${query}` : path,
          headers,
          ...(op.body ? { body } : {}),
        };
      };
      return places.map((place) => {
        const own = place.where === 'header' ? (exchange ? PARTICIPANT : 'main') : ownValue(place.kind);
        const foreign = place.where === 'header' ? (exchange ? OTHER_PARTICIPANT : 'hedge') : foreignValue(place.kind);
        return {
          label: `${op.method} ${op.path} ${place.where}:${place.name}`,
          place,
          request: build(place, foreign),
          ...(own === undefined ? {} : { control: build(place, own) }),
        };
      });
    });
  }

  const send = (request: SentRequest, clientId = ALICE_ONLY) =>
    api(stack, clientId)(request.path, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    });

  it('finds every route family and every kind of identity place in the document', () => {
    const all = attempts();
    const routes = new Set(all.map((a) => a.label.split(' ').slice(0, 2).join(' ')));
    expect([...routes].filter((r) => r.includes(' /exchange/')).length).toBeGreaterThanOrEqual(23);
    expect([...routes].filter((r) => r.includes(' /retail/')).length).toBeGreaterThanOrEqual(13);
    const bodyFields = new Set(all.filter((a) => a.place.where === 'body').map((a) => a.place.name.split('.').pop()));
    expect([...bodyFields].sort()).toEqual(
      expect.arrayContaining([
        'account',
        'accounts',
        'clientAccountId',
        'clientParticipantId',
        'fundingAccountId',
        'orderId',
        'user',
      ]),
    );
    expect(all.some((a) => a.place.where === 'path' && a.place.kind === 'retail-order')).toBe(true);
  });

  it('marks every body field and parameter whose name says it may name a principal, or knows why it need not', () => {
    const unmarked = operationsOf(doc).flatMap((op) => {
      const marks = new Set([
        ...markedFields(op.body).map((place) => place.kind),
        ...op.parameters.flatMap((p) => p.schema?.['x-identity'] ?? []),
      ]);
      const excused = (name: string) => {
        const exemption = NOT_IDENTITIES[name];
        return (
          exemption !== undefined &&
          (exemption.beside === undefined || exemption.beside.split('|').some((kind) => marks.has(kind)))
        );
      };
      const fields = propertyNames(op.body).map(({ name, marked }) => ({ name: `body:${name}`, bare: name, marked }));
      const params = op.parameters
        .filter((p) => p.in === 'path' || p.in === 'query')
        .map((p) => ({ name: `${p.in}:${p.name}`, bare: p.name, marked: Boolean(p.schema?.['x-identity']) }));
      return [...fields, ...params]
        .filter(({ bare, marked }) => (PRINCIPAL_NAME.test(bare) || ANY_ID.test(bare)) && !marked && !excused(bare))
        .map(({ name }) => `${op.method} ${op.path} ${name}`);
    });
    expect([...new Set(unmarked)]).toEqual([]);
  });

  it('refuses bob and hedge everywhere with 403 or 404, sending nothing for them and leaving their orders alone', async () => {
    const before = victims();
    const hedgeSigned = stack.sandbox.state.counter(`retail.accepted.key.${hedgeKeyId}`);
    const mainKeyId = stack.sandbox.keys.retail.find((key) => key.name === 'main')!.keyId;
    const signedAsMain = new RegExp(`^(retail\\.route\\.|retail\\.accepted\\.key\\.${mainKeyId}$)`);
    const failures: string[] = [];
    for (const attempt of attempts()) {
      const counters = upstreamCounters();
      const res = await send(attempt.request);
      const problem = res.headers.get('content-type')?.includes('application/problem+json');
      await res.arrayBuffer();
      // Confirming an order id costs one lookup made as alice (exchange open orders) or one call signed as main (retail).
      // A funding account id is confirmed among alice's own (one funding-accounts lookup made as alice).
      const lookups: Record<string, RegExp> = {
        order: /^exchange\.calls\.openOrders$/,
        'retail-order': signedAsMain,
        'funding-account': /^exchange\.calls\.fundingAccounts$/,
      };
      const allowed = lookups[attempt.place.kind] ?? /^$/;
      const sent = changed(counters, upstreamCounters()).filter((name) => !allowed.test(name));
      if (![403, 404].includes(res.status) || !problem || sent.length > 0)
        failures.push(
          `${attempt.label} → ${res.status}${problem ? '' : ' (not problem+json)'}${sent.length ? ` upstream: ${sent.join(', ')}` : ''}`,
        );
    }
    expect(failures).toEqual([]);
    expect(stack.sandbox.state.counter(`retail.accepted.key.${hedgeKeyId}`)).toBe(hedgeSigned);
    expect(victims()).toEqual(before);
  });

  it('accepts the same requests with alice and main in those places, so the refusals were about identity', async () => {
    const refused: string[] = [];
    for (const attempt of attempts().filter((a) => a.control)) {
      const res = await send(attempt.control!);
      const code = res.headers.get('content-type')?.includes('application/problem+json')
        ? (await json(res)).code
        : (await res.arrayBuffer(), undefined);
      // An upstream refusal (no position to close, unknown order) is fine here; the gateway's own is not.
      if ([401, 403].includes(res.status) || code === 'VALIDATION_FAILED')
        refused.push(`${attempt.label} → ${res.status} ${code ?? ''}`);
    }
    expect(refused).toEqual([]);
  });
});

describe('identity narrowing for a client allowed only alice', () => {
  let stack: Stack;
  let bobOrderId: string;

  beforeAll(async () => {
    stack = await startExchangeStack([
      {
        id: ALICE_ONLY,
        scopes: SCOPES.filter((scope) => scope !== 'admin'),
        participants: [PARTICIPANT],
        retailAccounts: ['main'],
      },
    ]);
    bobOrderId = (
      await json(
        await post(stack, '/exchange/v1/trading/orders', limit('SIDE_SELL', 2, 91), 'all', {
          'x-participant-id': OTHER_PARTICIPANT,
        }),
      )
    ).orderId;
    await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 2, 9), ALICE_ONLY);
  });
  afterAll(() => stack.close());

  it("narrows searches and balances without a filter to alice, and finds nothing by bob's order id", async () => {
    const all = await json(await post(stack, '/exchange/v1/report/orders/search', { pageSize: 100 }, ALICE_ONLY));
    expect(all.order.length).toBeGreaterThan(0);
    expect(all.order.every((order: Json) => order.account === PARTICIPANT)).toBe(true);
    expect(
      (await json(await post(stack, '/exchange/v1/report/orders/search', { orderId: bobOrderId }, ALICE_ONLY))).order,
    ).toEqual([]);
    const { balances } = await json(await post(stack, '/exchange/v1/positions/balances', {}, ALICE_ONLY));
    expect(balances.map((b: Json) => b.account)).toEqual([PARTICIPANT]);
    const { trades } = await json(
      await post(stack, '/exchange/v1/report/trades/search', { symbol: SYMBOL }, ALICE_ONLY),
    );
    expect(trades.every((t: Json) => t.buyAccount !== OTHER_PARTICIPANT && t.sellAccount !== OTHER_PARTICIPANT)).toBe(
      true,
    );
  });

  it('books an order without an account to alice and names the foreign field of a batch', async () => {
    const { orderId } = await json(
      await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 8), ALICE_ONLY),
    );
    expect(stack.sandbox.state.engine.order(orderId)).toMatchObject({ account: PARTICIPANT });
    const requests = [
      limit('SIDE_BUY', 1, 7),
      limit('SIDE_BUY', 1, 7),
      limit('SIDE_BUY', 1, 7),
      limit('SIDE_BUY', 1, 7, { account: OTHER_PARTICIPANT }),
    ];
    const res = await post(stack, '/exchange/v1/trading/orders/list', { requests }, ALICE_ONLY);
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({
      code: 'FORBIDDEN',
      field: 'requests[3].account',
      participant: OTHER_PARTICIPANT,
    });
  });

  it('shows alice-only its own participants and scopes in /users and /whoami, and everything to admin', async () => {
    expect((await json(await api(stack, ALICE_ONLY)('/exchange/v1/users'))).users).toEqual([PARTICIPANT]);
    const whoami = await json(await api(stack, ALICE_ONLY)('/exchange/v1/whoami'));
    expect(whoami.participants).toEqual([PARTICIPANT]);
    expect(whoami.scopes.length).toBeGreaterThan(0);
    expect(
      whoami.scopes.every((scope: string) => SCOPES.includes(scope as (typeof SCOPES)[number]) && scope !== 'admin'),
    ).toBe(true);
    expect((await json(await api(stack)('/exchange/v1/users'))).users).toEqual([PARTICIPANT, OTHER_PARTICIPANT]);
  });

  it("refuses a deposit naming bob's funding account locally: 403 naming the field, nothing sent upstream, no cash moved", async () => {
    const { accounts } = await json(
      await api(stack)('/exchange/v1/funding/accounts', { headers: { 'x-participant-id': OTHER_PARTICIPANT } }),
    );
    const bobs = (accounts as Json[]).find((a) => a.processor === 'checkout').id as string;
    const before = {
      sent: upstreamCalls(stack),
      bob: stack.sandbox.state.engine.balance(OTHER_PARTICIPANT),
      alice: stack.sandbox.state.engine.balance(PARTICIPANT),
    };
    const res = await post(
      stack,
      '/exchange/v1/checkout/deposits',
      { amount: '100', fundingAccountId: bobs },
      ALICE_ONLY,
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(res)).toMatchObject({ code: 'FORBIDDEN', field: 'fundingAccountId', fundingAccountId: bobs });
    expect({
      sent: upstreamCalls(stack),
      bob: stack.sandbox.state.engine.balance(OTHER_PARTICIPANT),
      alice: stack.sandbox.state.engine.balance(PARTICIPANT),
    }).toEqual(before);
  });

  it("sends a deposit naming a funding account only once the exchange lists it among the chosen participant's own", async () => {
    const deposits = () => stack.sandbox.state.counter('exchange.calls.deposit');
    const sent = deposits();
    const unknown = await post(
      stack,
      '/exchange/v1/checkout/deposits',
      { amount: '100', fundingAccountId: 'FA-not-alices' },
      ALICE_ONLY,
    );
    expect(unknown.status).toBe(403);
    expect(await json(unknown)).toMatchObject({ code: 'FORBIDDEN', field: 'fundingAccountId' });
    expect(deposits()).toBe(sent);
    const { accounts } = await json(await api(stack, ALICE_ONLY)('/exchange/v1/funding/accounts'));
    const own = await post(
      stack,
      '/exchange/v1/checkout/deposits',
      { amount: '100', fundingAccountId: (accounts as Json[]).find((a) => a.processor === 'checkout').id },
      ALICE_ONLY,
    );
    expect(own.status).toBe(200);
    expect(deposits()).toBe(sent + 1);
  });

  it("cancels alice's own working order by id after confirming it is hers", async () => {
    const { orderId } = await json(
      await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 6), ALICE_ONLY),
    );
    const res = await post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, ALICE_ONLY);
    expect(res.status).toBe(200);
    expect(stack.sandbox.state.engine.order(orderId)).toMatchObject({ state: 'ORDER_STATE_CANCELED' });
  });
});
