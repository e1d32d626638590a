import type { IdempotencyRecord } from '@lib/journal';

import {
  modifyIsComparable,
  replaceIsComparable,
  replaceItemsOf,
  showsModifyTerms,
  showsReplaceTerms,
} from './change-terms.js';

const record = (request: unknown): IdempotencyRecord =>
  ({
    clientId: 'c',
    key: 'k',
    fingerprint: 'f',
    operation: 'exchange.batchReplace',
    clordIds: [],
    team: 't',
    request,
    state: 'unknown',
    status: null,
    body: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  }) as IdempotencyRecord;

describe('change terms: what an order must show for a lost replace or modify to count as applied', () => {
  it('compares the terms a replace set, numbers as numbers, and ignores the rest', () => {
    const item = { orderId: 'O1', clordId: 'B', price: '22' };
    expect(showsReplaceTerms({ id: 'O1', clordId: 'B', price: '22.0', orderQty: '5' }, item)).toBe(true);
    expect(showsReplaceTerms({ id: 'O1', clordId: 'A', price: '22' }, item)).toBe(false);
    expect(showsReplaceTerms({ id: 'O1', clordId: 'B', price: '21' }, item)).toBe(false);
    // A field the order does not show (proto3 default '') is not the asked term.
    expect(showsReplaceTerms({ id: 'O1', clordId: 'B', price: '' }, item)).toBe(false);
  });

  it('cannot tell a change that sets none of the compared terms', () => {
    expect(replaceIsComparable({ orderId: 'O1', allOrNone: true })).toBe(false);
    expect(replaceIsComparable({ orderId: 'O1', orderQty: '3' })).toBe(true);
    expect(modifyIsComparable({ marketSlug: 'm' })).toBe(false);
    expect(modifyIsComparable({ marketSlug: 'm', quantity: 4 })).toBe(true);
  });

  it('compares a modify by price value and quantity', () => {
    const body = { marketSlug: 'm', price: { value: '0.18' }, quantity: 4 };
    expect(showsModifyTerms({ price: { value: '0.180' }, quantity: 4 }, body)).toBe(true);
    expect(showsModifyTerms({ price: { value: '0.17' }, quantity: 4 }, body)).toBe(false);
    expect(showsModifyTerms({ price: { value: '0.18' }, quantity: '3' }, body)).toBe(false);
  });

  it('reads the replace items a record kept, and nothing from a malformed one', () => {
    expect(replaceItemsOf(record({ requests: [{ orderId: 'O1', price: '2' }] }))).toEqual([
      { orderId: 'O1', price: '2' },
    ]);
    expect(replaceItemsOf(record({ requests: [{ price: '2' }] }))).toBeUndefined();
    expect(replaceItemsOf(record(undefined))).toBeUndefined();
  });
});
