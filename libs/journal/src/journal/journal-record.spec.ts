import { type JournalRecord, madeOrder, provesOrder } from './journal-record.js';

const record = (fields: Partial<JournalRecord>): JournalRecord => ({
  seq: 1,
  at: '2026-11-27T00:00:00.000Z',
  hash: 'h',
  kind: 'answer',
  orderId: 'O1',
  team: 'trading',
  ...fields,
});

describe(madeOrder.name, () => {
  it("takes a create's or an insert's 2xx answer naming the order, and a found resolution", () => {
    expect(madeOrder(record({ data: { status: 200, body: { id: 'O1', executions: [] } } }))).toBe(true);
    expect(madeOrder(record({ clordId: 'c-1', data: { status: 200, body: { orderId: 'O1' } } }))).toBe(true);
    expect(madeOrder(record({ kind: 'resolved', data: { outcome: 'found' } }))).toBe(true);
  });

  it('does not take a record of a call that only acted on the order', () => {
    // A cancel (its received record and its answer), a replace's answer, a kill-switch run, a change applied.
    expect(madeOrder(record({ kind: 'received', data: { operation: 'retail.cancel' } }))).toBe(false);
    expect(madeOrder(record({ data: { status: 200, body: {} } }))).toBe(false);
    expect(madeOrder(record({ data: { status: 200, body: { orderId: 'O1' } } }))).toBe(false);
    expect(madeOrder(record({ kind: 'admin', data: { action: 'kill-switch', outcome: 'cancelled' } }))).toBe(false);
    expect(madeOrder(record({ kind: 'resolved', data: { outcome: 'applied' } }))).toBe(false);
    expect(madeOrder(record({ data: { status: 404, body: { id: 'O1' } } }))).toBe(false);
  });
});

describe(provesOrder.name, () => {
  it('takes a 2xx answer or a found or applied resolution, unless the gateway marked the call as one that acts only', () => {
    expect(provesOrder(record({ data: { status: 200, givesOrder: true, body: { orderId: 'O1' } } }))).toBe(true);
    expect(provesOrder(record({ kind: 'resolved', data: { outcome: 'applied', givesOrder: true } }))).toBe(true);
    // A retail modify's or a cancel's answer names an order a sibling on a shared account may have made.
    expect(provesOrder(record({ data: { status: 200, givesOrder: false, body: {} } }))).toBe(false);
    expect(provesOrder(record({ kind: 'resolved', data: { outcome: 'applied', givesOrder: false } }))).toBe(false);
    expect(madeOrder(record({ data: { status: 200, givesOrder: false, body: { id: 'O1' } } }))).toBe(false);
  });
});
