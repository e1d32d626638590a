import { OTHER_PARTICIPANT, PARTICIPANT, type Json, type Stack, eventually, startStack } from './support/stack.js';
import { WsClients, type WsTestClient } from './support/ws-client.js';

const SYMBOL = 'aec-nfl-det-min-2026-11-22';
const GTC = 'TIME_IN_FORCE_GOOD_TILL_CANCEL' as const;
const IOC = 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' as const;
const CAROL = 'firms/OTHERFIRM/users/carol';
const positionsOf = (participant: string) => `exchange.positions.${participant}`;
const STATE = 'exchange.instrumentState';

let stack: Stack;
const clients = new WsClients();
beforeAll(async () => {
  stack = await startStack({
    clients: [
      { id: 'alice-desk', scopes: ['read:dropcopy'], participants: [PARTICIPANT] },
      { id: 'quotes', scopes: ['read:marketdata'] },
    ],
  });
});
afterAll(async () => {
  clients.closeAll();
  await stack.close();
});

const connect = (clientId: string): Promise<WsTestClient> => clients.connect(stack, clientId);

/** Ends the sandbox's open calls of one method with UNAVAILABLE, as a lost connection would. */
async function cut(call: string): Promise<Json> {
  const res = await fetch(`${stack.sandbox.urls.exchange}/_sandbox/grpc/streams/cut`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: 'UNAVAILABLE', call }),
  });
  return res.json();
}

/** The net position of `symbol` a positions frame shows, whichever shape (snapshot or update) it has. */
function netOf(frame: Json, symbol: string): string | undefined {
  const positions: Json[] = frame.data.positions ?? frame.data.positionChanges.map((change: Json) => change.position);
  return positions.findLast((position) => position.symbol === symbol)?.netPosition;
}

describe('exchange.positions.<participant> on /ws', () => {
  it('folds fills made before the subscribe into the snapshot, then sends the allowed participant its changes only', async () => {
    const { engine } = stack.sandbox.state;
    // A fill before anyone asks: the topic replays the exchange's retained changes into its snapshot.
    engine.insert({ symbol: SYMBOL, side: 'SIDE_BUY', orderQty: 3, price: 40, timeInForce: GTC, account: PARTICIPANT });
    engine.insert({ symbol: SYMBOL, side: 'SIDE_SELL', orderQty: 2, price: 40, timeInForce: IOC, account: CAROL });

    const alice = await connect('alice-desk');
    alice.send({ type: 'subscribe', id: 'p', topics: [positionsOf(PARTICIPANT), positionsOf(OTHER_PARTICIPANT)] });
    expect(await alice.next((f) => f.type === 'error')).toMatchObject({
      code: 'forbidden',
      topic: positionsOf(OTHER_PARTICIPANT),
      message: expect.stringContaining(OTHER_PARTICIPANT),
    });
    expect(await alice.next((f) => f.type === 'ack', 10_000)).toMatchObject({ topics: [positionsOf(PARTICIPANT)] });
    const [snapshot] = alice.topic(positionsOf(PARTICIPANT));
    expect(snapshot).toMatchObject({ type: 'snapshot', seq: 1 });
    expect(snapshot!.data.positions).toEqual([
      expect.objectContaining({ account: PARTICIPANT, symbol: SYMBOL, netPosition: '2' }),
    ]);

    // Bob fills at 41 (above alice's bid), then alice's resting 1 and a new 1 fill at 40.
    engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_BUY',
      orderQty: 1,
      price: 41,
      timeInForce: GTC,
      account: OTHER_PARTICIPANT,
    });
    engine.insert({ symbol: SYMBOL, side: 'SIDE_SELL', orderQty: 1, price: 41, timeInForce: IOC, account: CAROL });
    engine.insert({ symbol: SYMBOL, side: 'SIDE_BUY', orderQty: 1, price: 40, timeInForce: GTC, account: PARTICIPANT });
    engine.insert({ symbol: SYMBOL, side: 'SIDE_SELL', orderQty: 2, price: 40, timeInForce: IOC, account: CAROL });
    await alice.next(
      (f) => f.topic === positionsOf(PARTICIPANT) && f.type === 'update' && netOf(f, SYMBOL) === '4',
      10_000,
    );
    const updates = alice.topic(positionsOf(PARTICIPANT)).slice(1);
    expect(
      updates.every(
        (f) => f.type === 'update' && f.data.positionChanges.every((c: Json) => c.position.account === PARTICIPANT),
      ),
    ).toBe(true);
    expect(updates.map((f) => f.seq)).toEqual(updates.map((_, i) => i + 2));

    // A late joiner gets each participant's latest position, folded; both ride the instance's one call.
    const late = await connect('all');
    late.send({ type: 'subscribe', id: 'l', topics: [positionsOf(PARTICIPANT), positionsOf(OTHER_PARTICIPANT)] });
    await late.next((f) => f.type === 'ack', 10_000);
    expect(netOf(late.topic(positionsOf(PARTICIPANT))[0], SYMBOL)).toBe('4');
    expect(late.topic(positionsOf(OTHER_PARTICIPANT))[0]!.data.positions).toEqual([
      expect.objectContaining({ account: OTHER_PARTICIPANT, netPosition: '1' }),
    ]);
    expect(stack.sandbox.state.streams.view().byCall.CreatePositionChangeSubscription).toBe(1);

    // A lost call resumes after the last batch (the token in memory): no resync, no change lost or repeated.
    const seen = alice.topic(positionsOf(PARTICIPANT)).length;
    expect(await cut('CreatePositionChangeSubscription')).toEqual({ cut: 1 });
    engine.insert({ symbol: SYMBOL, side: 'SIDE_BUY', orderQty: 1, price: 40, timeInForce: GTC, account: PARTICIPANT });
    engine.insert({ symbol: SYMBOL, side: 'SIDE_SELL', orderQty: 1, price: 40, timeInForce: IOC, account: CAROL });
    await alice.next((f) => f.topic === positionsOf(PARTICIPANT) && netOf(f, SYMBOL) === '5', 10_000);
    const after = alice.topic(positionsOf(PARTICIPANT)).slice(seen);
    expect(after.map((f) => f.type)).toEqual(['update']);
    expect(after[0]!.data.positionChanges).toHaveLength(1);
    expect(stack.sandbox.state.counter('grpc.streams.opened.CreatePositionChangeSubscription')).toBe(2);
    alice.close();
    late.close();
  }, 30_000);

  it('rebuilds the positions from the retained changes when the topic opens again after its call ended', async () => {
    const open = () => stack.sandbox.state.streams.view().byCall.CreatePositionChangeSubscription ?? 0;
    await eventually(
      async () => open(),
      (calls) => calls === 0,
      15_000,
    ); // every positions topic left; the linger ended
    const again = await connect('alice-desk');
    expect(await again.subscribe([positionsOf(PARTICIPANT)])).toMatchObject({ type: 'ack' });
    expect(again.topic(positionsOf(PARTICIPANT))[0]!.data.positions).toEqual([
      expect.objectContaining({ symbol: SYMBOL, netPosition: '5' }),
    ]);
    expect(open()).toBe(1);
  }, 30_000);
});

describe('exchange.instrumentState on /ws', () => {
  it('sends every instrument state first, then a change, and refuses a client without read:instruments', async () => {
    const instruments = stack.sandbox.state.engine.instruments();
    const symbol = instruments.find(
      (instrument) => instrument.symbol !== SYMBOL && instrument.state === 'INSTRUMENT_STATE_OPEN',
    )!.symbol;

    const quotes = await connect('quotes');
    quotes.send({ type: 'subscribe', id: 'q', topics: [STATE] });
    expect(await quotes.next((f) => f.type === 'error')).toMatchObject({
      code: 'forbidden',
      topic: STATE,
      missingScope: 'read:instruments',
    });

    const client = await connect('all');
    client.send({ type: 'subscribe', id: 's', topics: [STATE] });
    await client.next((f) => f.type === 'ack', 10_000);
    const [snapshot] = client.topic(STATE);
    expect(snapshot!.data.instruments).toHaveLength(instruments.length);
    expect(snapshot!.data.instruments).toContainEqual(
      expect.objectContaining({ symbol, state: 'INSTRUMENT_STATE_OPEN' }),
    );

    const halted = await fetch(`${stack.sandbox.urls.exchange}/_sandbox/instruments/${symbol}/state`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'INSTRUMENT_STATE_HALTED' }),
    });
    expect(halted.status).toBe(200);
    const update = await client.next((f) => f.topic === STATE && f.type === 'update', 10_000);
    expect(update.data.instruments).toEqual([expect.objectContaining({ symbol, state: 'INSTRUMENT_STATE_HALTED' })]);

    // A late joiner's snapshot is the current state: the change folded in, nothing else lost.
    const late = await connect('all');
    late.send({ type: 'subscribe', id: 'l', topics: [STATE] });
    await late.next((f) => f.type === 'ack', 10_000);
    const current = late.topic(STATE)[0]!.data.instruments;
    expect(current).toHaveLength(instruments.length);
    expect(current.find((instrument: Json) => instrument.symbol === symbol)).toMatchObject({
      state: 'INSTRUMENT_STATE_HALTED',
    });
    expect(stack.sandbox.state.streams.view().byCall.CreateInstrumentStateChangeSubscription).toBe(1);

    // A lost call: the next one starts with the current state again, which clients get as a resync.
    expect(await cut('CreateInstrumentStateChangeSubscription')).toEqual({ cut: 1 });
    const resync = await client.next((f) => f.topic === STATE && f.type === 'resync', 10_000);
    expect(resync.data.instruments).toHaveLength(instruments.length);
    expect(resync.data.instruments.find((instrument: Json) => instrument.symbol === symbol)).toMatchObject({
      state: 'INSTRUMENT_STATE_HALTED',
    });
  }, 30_000);
});
