import { ForbiddenError } from '@lib/core';
import {
  BatchInsertRequestSchema,
  CancelOrderRequestSchema,
  DepositRequestSchema,
  OrderSearchRequestSchema,
} from '@lib/exchange';

import { openApiSchemaOf } from '../../common/pipes/zod-params.js';
import { IdentityBinder } from './identity-binder.js';
import { identityFieldsOf } from './identity-fields.js';

const ALICE = 'firms/DEVFIRM/users/alice';
const CAROL = 'firms/DEVFIRM/users/carol';
const BOB = 'firms/DEVFIRM/users/bob';
const context = { clientId: 'alice-only', chosen: ALICE, allowed: [ALICE, CAROL] };
const order = { symbol: 'aec-nfl-buf-kc-2026-11-22', side: 'SIDE_BUY', orderQty: '1', price: '40' };

const refusal = (run: () => unknown): ForbiddenError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ForbiddenError) return error;
    throw error;
  }
  throw new Error('expected a 403');
};

describe(IdentityBinder.name, () => {
  const binderFor = (schema: Parameters<typeof openApiSchemaOf>[0]) =>
    new IdentityBinder(identityFieldsOf(openApiSchemaOf(schema)));

  it('reads every marked field of a batch from the schema, items included', () => {
    const sut = binderFor(BatchInsertRequestSchema);
    expect(sut.fields.map((field) => field.path.join('.'))).toEqual([
      'requests.*.account',
      'requests.*.user',
      'requests.*.clientAccountId',
      'requests.*.clientParticipantId',
    ]);
  });

  it('fills an absent account with the chosen participant and keeps an allowed one', () => {
    const sut = binderFor(BatchInsertRequestSchema);
    const requests: Record<string, string>[] = [order, { ...order, account: CAROL }];
    const { body } = sut.bind({ requests }, context);
    expect(body.requests.map((r) => r.account)).toEqual([ALICE, CAROL]);
  });

  it('refuses a foreign participant in any marked field, naming the item and field', () => {
    const sut = binderFor(BatchInsertRequestSchema);
    const requests = [order, order, order, { ...order, clientParticipantId: BOB }];
    const error = refusal(() => sut.bind({ requests }, context));
    expect(error.extensions).toEqual({ field: 'requests[3].clientParticipantId', participant: BOB });
  });

  it('leaves the body it was given untouched', () => {
    const sut = binderFor(BatchInsertRequestSchema);
    const given = { requests: [{ ...order }] };
    sut.bind(given, context);
    expect(given.requests[0]).not.toHaveProperty('account');
  });

  it('narrows an absent or empty account filter to every allowed participant and checks a given one item by item', () => {
    const sut = binderFor(OrderSearchRequestSchema);
    expect(sut.bind({}, context).body).toEqual({ accounts: [ALICE, CAROL] });
    expect(sut.bind({ accounts: [] }, context).body).toEqual({ accounts: [ALICE, CAROL] });
    expect(refusal(() => sut.bind({ accounts: [CAROL, BOB] }, context)).extensions).toMatchObject({
      field: 'accounts[1]',
    });
  });

  it('collects order ids for confirmation instead of judging them itself', () => {
    const sut = binderFor(CancelOrderRequestSchema);
    expect(sut.bind({ orderId: 'O7' }, context)).toEqual({
      body: { orderId: 'O7', account: ALICE },
      orders: [{ field: 'orderId', id: 'O7' }],
      fundingAccounts: [],
    });
  });

  it('refuses a funding account id naming another participant than the chosen one at once, and collects any other for confirmation', () => {
    const sut = binderFor(DepositRequestSchema);
    expect(sut.fields).toEqual([{ path: ['fundingAccountId'], kind: 'funding-account' }]);
    expect(refusal(() => sut.bind({ amount: '1', fundingAccountId: `checkout:${BOB}` }, context)).extensions).toEqual({
      field: 'fundingAccountId',
      fundingAccountId: `checkout:${BOB}`,
    });
    // Carol is allowed, but the deposit acts for alice: carol's account is not alice's to pay into.
    expect(
      refusal(() => sut.bind({ amount: '1', fundingAccountId: `checkout:${CAROL}` }, context)).extensions,
    ).toMatchObject({ field: 'fundingAccountId' });
    expect(sut.bind({ amount: '1', fundingAccountId: 'FA-9' }, context).fundingAccounts).toEqual([
      { field: 'fundingAccountId', id: 'FA-9' },
    ]);
    expect(sut.bind({ amount: '1' }, context).fundingAccounts).toEqual([]);
  });

  it('echoes at most 100 characters of a refused value', () => {
    const sut = binderFor(CancelOrderRequestSchema);
    const error = refusal(() => sut.bind({ clordId: 'c', account: 'x'.repeat(150) }, context));
    expect((error.extensions as { participant: string }).participant).toHaveLength(101);
  });
});
