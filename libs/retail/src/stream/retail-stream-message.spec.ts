import { parseRetailFrame } from './retail-stream-message.js';
import { parseRetailTopic } from './retail-topic.source.js';

const frame = (message: object) => parseRetailFrame(JSON.stringify(message));
const position = { netPosition: '2', marketMetadata: { slug: 'm' } };

describe(parseRetailFrame.name, () => {
  it.each<[string, object, string, string]>([
    [
      'the SDK position update',
      { requestId: 'r', positionSubscriptionUpdate: { marketSlug: 'm', position } },
      'positions',
      'update',
    ],
    [
      "the docs' position update",
      { requestId: 'r', positionSubscription: { beforePosition: position, afterPosition: position } },
      'positions',
      'update',
    ],
    [
      'the SDK balance snapshot',
      { requestId: 'r', accountBalanceSubscriptionSnapshot: { balance: 1, buyingPower: 1 } },
      'balances',
      'snapshot',
    ],
    [
      "the docs' balance snapshot",
      { requestId: 'r', accountBalancesSnapshot: { balances: [] } },
      'balances',
      'snapshot',
    ],
    [
      "the docs' balance update",
      { requestId: 'r', accountBalancesUpdate: { balanceChange: {} } },
      'balances',
      'update',
    ],
    [
      'an order update',
      { requestId: 'r', orderSubscriptionUpdate: { execution: { order: { marketSlug: 'm' } } } },
      'orders',
      'update',
    ],
    [
      'a full book',
      { requestId: 'r', marketData: { marketSlug: 'm', bids: [], offers: [] } },
      'marketData',
      'snapshot',
    ],
  ])('reads %s as one internal event and keeps the payload', (_, message, stream, kind) => {
    const [key] = Object.keys(message).filter((name) => name !== 'requestId');
    expect(frame(message)).toEqual({
      kind: 'data',
      event: expect.objectContaining({
        stream,
        kind,
        key,
        requestId: 'r',
        data: (message as Record<string, unknown>)[key],
      }),
    });
  });

  it('names the market of an update wherever the payload carries it', () => {
    expect(
      frame({ requestId: 'r', orderSubscriptionUpdate: { execution: { order: { marketSlug: 'm' } } } }),
    ).toMatchObject({ event: { marketSlug: 'm' } });
    expect(frame({ requestId: 'r', positionSubscription: { afterPosition: position } })).toMatchObject({
      event: { marketSlug: 'm' },
    });
  });

  it('tells heartbeats, errors and noise apart', () => {
    expect(frame({ heartbeat: {} })).toEqual({ kind: 'heartbeat' });
    expect(frame({ requestId: 'r', error: 'unknown market' })).toEqual({
      kind: 'error',
      requestId: 'r',
      message: 'unknown market',
    });
    expect(parseRetailFrame('not json')).toMatchObject({ kind: 'unknown' });
    expect(frame({ requestId: 'r', somethingNew: {} })).toMatchObject({ kind: 'unknown' });
  });
});

describe(parseRetailTopic.name, () => {
  it('maps each topic family onto its channel and subscription', () => {
    expect(parseRetailTopic('retail.marketDataLite.m')).toEqual({
      channel: 'markets',
      subscriptionType: 'SUBSCRIPTION_TYPE_MARKET_DATA_LITE',
      marketSlugs: ['m'],
    });
    expect(parseRetailTopic('retail.orders')).toEqual({
      channel: 'private',
      subscriptionType: 'SUBSCRIPTION_TYPE_ORDER',
      marketSlugs: [],
    });
    expect(parseRetailTopic('retail.orders.m')).toMatchObject({ marketSlugs: ['m'] });
    expect(parseRetailTopic('retail.balances')).toEqual({
      channel: 'private',
      subscriptionType: 'SUBSCRIPTION_TYPE_ACCOUNT_BALANCE',
    });
    expect(parseRetailTopic('retail.account.hedge.orders.m')).toEqual({
      channel: 'private',
      subscriptionType: 'SUBSCRIPTION_TYPE_ORDER',
      marketSlugs: ['m'],
      account: 'hedge',
    });
    expect(parseRetailTopic('retail.account.hedge.positions')).toEqual({
      channel: 'private',
      subscriptionType: 'SUBSCRIPTION_TYPE_POSITION',
      account: 'hedge',
    });
  });

  it.each([
    'retail.trade',
    'retail.positions.m',
    'retail.toString.m',
    'exchange.orders',
    'retail.account.hedge',
    'retail.account.hedge.trade.m',
  ])('refuses %s', (topic) => {
    expect(() => parseRetailTopic(topic)).toThrow(/not a retail (account )?topic/);
  });
});
