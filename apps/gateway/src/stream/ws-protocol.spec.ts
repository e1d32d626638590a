import { declaredTopics } from './testing/declared-topics.js';
import { parseClientMessage, topicRule } from './ws-protocol.js';

describe('topicRule', () => {
  const families = declaredTopics();

  it.each([
    ['retail.marketData.aec-nba-mil-phi-2026-11-21', 'read:marketdata', false],
    ['retail.trade.x', 'read:marketdata', false],
    ['exchange.marketData.aec-nba-mil-phi-2026-11-21', 'read:marketdata', false],
    ['retail.orders', 'read:orders', true],
    ['retail.orders.x', 'read:orders', true],
    ['retail.positions', 'read:positions', true],
    ['retail.balances', 'read:positions', true],
    ['exchange.instrumentState', 'read:instruments', false],
  ])('maps %s to %s', (topic, scope, account) => {
    expect(topicRule(families, topic)).toMatchObject({ scope, account, accountName: undefined });
  });

  it.each([
    ['exchange.marketData.aec-nba-mil-phi-2026-11-21', 'exchange.marketData.<symbol>'],
    ['retail.orders.x', 'retail.orders[.<slug>]'],
    ['exchange.orders.firms/F/users/alice', 'exchange.orders.<participant>'],
  ])('names the family of %s by its syntax, %s', (topic, family) => {
    expect(topicRule(families, topic)?.family).toBe(family);
  });

  it.each([
    ['exchange.orders.firms/F/users/alice', 'read:orders'],
    ['exchange.positions.firms/F/users/alice', 'read:dropcopy'],
  ])('maps %s to %s of the participant it names', (topic, scope) => {
    expect(topicRule(families, topic)).toMatchObject({ scope, account: false, participant: 'firms/F/users/alice' });
  });

  it.each([
    ['retail.account.hedge.orders', 'read:orders'],
    ['retail.account.hedge.orders.aec-nba-mil-phi-2026-11-21', 'read:orders'],
    ['retail.account.hedge-2.positions', 'read:positions'],
    ['retail.account.hedge.balances', 'read:positions'],
  ])('maps %s to %s of the account it names', (topic, scope) => {
    expect(topicRule(families, topic)).toMatchObject({ scope, account: true, accountName: topic.split('.')[2] });
  });

  it.each([
    'retail.marketData.',
    'retail.positions.x',
    'retail.ordersx',
    'exchange.trades.x',
    'exchange.positions.alice',
    'exchange.positions.firms/F/users/alice/x',
    'exchange.instrumentState.x',
    'retail.marketData.a b',
    'retail.account.Hedge.orders',
    'retail.account.a.b.positions',
    'retail.account.hedge.marketData.x',
    'retail.account..balances',
  ])('refuses %s', (topic) => {
    expect(topicRule(families, topic)).toBeUndefined();
  });
});

describe('parseClientMessage', () => {
  it('accepts a subscribe with resumeFrom naming the epoch, or a bare seq (the older form)', () => {
    expect(
      parseClientMessage(
        '{"type":"subscribe","id":"1","topics":["retail.orders"],"resumeFrom":{"retail.orders":{"epoch":"e1","seq":4}}}',
      ),
    ).toMatchObject({
      resumeFrom: { 'retail.orders': { epoch: 'e1', seq: 4 } },
    });
    expect(
      parseClientMessage('{"type":"subscribe","id":"1","topics":["retail.orders"],"resumeFrom":{"retail.orders":4}}'),
    ).toMatchObject({ type: 'subscribe' });
    expect(
      parseClientMessage(
        '{"type":"subscribe","id":"1","topics":["retail.orders"],"resumeFrom":{"retail.orders":{"seq":4}}}',
      ),
    ).toMatch(/resumeFrom/);
  });

  it('names what is wrong with a refused frame', () => {
    expect(parseClientMessage('nope')).toBe('the frame is not JSON');
    expect(parseClientMessage('{"type":"subscribe","id":"1","topics":[]}')).toMatch(/^topics: /);
  });
});
