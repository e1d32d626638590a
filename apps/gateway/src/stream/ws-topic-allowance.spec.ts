import { SystemClock } from '@lib/core';

import { declaredTopics } from './testing/declared-topics.js';
import { WsTicketRequestSchema } from './ws-ticket.schema.js';
import { WsTicketStore } from './ws-ticket.store.js';
import { TopicAllowance, allowanceEntryProblem } from './ws-topic-allowance.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

describe(TopicAllowance.name, () => {
  const families = declaredTopics();
  const sut = new TopicAllowance(['exchange.marketData.a', 'retail.orders[.<slug>]'], families);

  it('permits the topics it names and every topic of the families it names, nothing else', () => {
    expect(sut.permits('exchange.marketData.a', 'exchange.marketData.<symbol>')).toBe(true);
    expect(sut.permits('retail.orders.x', 'retail.orders[.<slug>]')).toBe(true);
    expect(sut.permits('exchange.marketData.b', 'exchange.marketData.<symbol>')).toBe(false);
    expect(sut.permits('exchange.dropcopy', 'exchange.dropcopy')).toBe(false);
  });

  it('takes a topic or a family syntax as an entry, and names the problem of anything else', () => {
    expect(allowanceEntryProblem(families, 'exchange.marketData.<symbol>')).toBeUndefined();
    expect(allowanceEntryProblem(families, 'exchange.marketData.aec-nfl-buf-kc-2026-11-22')).toBeUndefined();
    expect(allowanceEntryProblem(families, 'exchange.*')).toContain('not a topic');
  });
});

describe('WsTicketRequestSchema', () => {
  it('takes no body, or 1 to 100 entries of at most 8,192 characters in all', () => {
    const topic = (i: number) => `exchange.marketData.${'s'.repeat(40)}-${i}`;
    expect(WsTicketRequestSchema.safeParse(undefined).success).toBe(true);
    expect(WsTicketRequestSchema.safeParse({ topics: Array.from({ length: 100 }, (_, i) => topic(i)) }).success).toBe(
      true,
    );
    expect(WsTicketRequestSchema.safeParse({ topics: Array.from({ length: 101 }, (_, i) => topic(i)) }).success).toBe(
      false,
    );
    expect(
      WsTicketRequestSchema.safeParse({
        topics: Array.from({ length: 50 }, (_, i) => `exchange.marketData.${'s'.repeat(150)}-${i}`),
      }).success,
    ).toBe(false);
    expect(WsTicketRequestSchema.safeParse({ topics: [] }).success).toBe(false);
  });
});

describe(`${WsTicketStore.name} without Redis`, () => {
  it('redeems a narrowed ticket once, with its topics, and a plain one without any', async () => {
    const sut = new WsTicketStore({} as GatewayConfig, null, new SystemClock());
    const narrowed = await sut.issue('dashboard', ['exchange.marketData.<symbol>']);
    const plain = await sut.issue('bot');

    expect(await sut.redeem(narrowed.ticket)).toMatchObject({
      clientId: 'dashboard',
      topics: ['exchange.marketData.<symbol>'],
    });
    expect(await sut.redeem(narrowed.ticket)).toBeUndefined();
    const taken = await sut.redeem(plain.ticket);
    expect(taken).toMatchObject({ clientId: 'bot', topics: undefined });
    // Given back (its connection was refused), it is good once more, for the rest of its life.
    await sut.giveBack(taken!);
    expect(await sut.redeem(plain.ticket)).toMatchObject({ clientId: 'bot' });
    expect(await sut.redeem(plain.ticket)).toBeUndefined();
  });
});
