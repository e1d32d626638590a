import {
  DONE_ORDER_STATES,
  type OrderMessage,
  type OrdersSnapshot,
  type OrdersUpdate,
  WorkingOrders,
} from './order-updates.messages.js';

const STATES = ['ORDER_STATE_NEW', 'ORDER_STATE_PARTIALLY_FILLED', 'ORDER_STATE_FILLED', 'ORDER_STATE_CANCELED'];
const order = (id: string, state: string, qty = 1): OrderMessage => ({ id, account: 'firms/F/users/a', state, qty });
const execution = (o: OrderMessage | null, id = 'e'): OrdersUpdate => ({ execution: { id, order: o } });

/** The list semantics, written plainly (a copy per update): the execution's order leaves its place and joins last, or leaves when done. */
function applyOrdersUpdate(snapshot: OrdersSnapshot, update: OrdersUpdate): OrdersSnapshot {
  if (!('execution' in update) || !update.execution.order) return snapshot;
  const changed = update.execution.order;
  const others = snapshot.orders.filter((o) => o.id !== changed.id);
  return { orders: DONE_ORDER_STATES.has(changed.state) ? others : [...others, changed] };
}

describe(WorkingOrders.name, () => {
  it('lists what applyOrdersUpdate would after every update: a changed order moves last, a done one leaves', () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const start = { orders: [order('a', 'ORDER_STATE_NEW'), order('b', 'ORDER_STATE_NEW')] };
    const sut = new WorkingOrders(start.orders);
    let expected = start;
    for (let i = 0; i < 2_000; i++) {
      const update: OrdersUpdate =
        next(10) === 0
          ? next(2) === 0
            ? { cancelReject: { account: 'firms/F/users/a' } }
            : execution(null)
          : execution(order(`o${next(40)}`, STATES[next(STATES.length)]!, i));
      expected = applyOrdersUpdate(expected, update);
      sut.apply(update);
      expect(sut.snapshot()).toEqual(expected);
    }
    expect(expected.orders.length).toBeGreaterThan(0);
  });

  it('hands out a copy: a snapshot already given does not change with later updates', () => {
    const sut = new WorkingOrders([order('a', 'ORDER_STATE_NEW')]);
    const given = sut.snapshot();
    sut.apply(execution(order('b', 'ORDER_STATE_NEW')));
    sut.apply(execution(order('a', 'ORDER_STATE_FILLED')));
    expect(given.orders.map((o) => o.id)).toEqual(['a']);
    expect(sut.snapshot().orders.map((o) => o.id)).toEqual(['b']);
  });

  it("as the hub's fold: reset starts again from a snapshot, without keeping the given list", () => {
    const sut = new WorkingOrders([order('x', 'ORDER_STATE_NEW')]);
    const snapshot = { orders: [order('a', 'ORDER_STATE_NEW'), order('b', 'ORDER_STATE_NEW')] };
    sut.reset(snapshot);
    sut.apply(execution(order('a', 'ORDER_STATE_PARTIALLY_FILLED')));
    expect(sut.data().orders.map((o) => o.id)).toEqual(['b', 'a']);
    expect(snapshot.orders.map((o) => o.state)).toEqual(['ORDER_STATE_NEW', 'ORDER_STATE_NEW']);
  });
});
