import { PassThrough } from 'node:stream';

import { RateLimitedError } from '@lib/core';

import { WsConnectionCounter } from './ws-connection.counter.js';

describe(WsConnectionCounter.name, () => {
  const socket = () => new PassThrough();

  it('refuses the connection past the cap with a 429 naming it, per client', () => {
    const sut = new WsConnectionCounter(2);
    sut.admit('bot', socket());
    sut.admit('bot', socket());
    sut.admit('other', socket());
    const refusal = (() => {
      try {
        sut.admit('bot', socket());
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(RateLimitedError);
    expect(refusal).toMatchObject({ extensions: { cap: 'connections', limit: 2 }, headers: { 'Retry-After': '5' } });
    expect(sut.count('bot')).toBe(2);
  });

  it('holds a client with a cap of its own to that cap, and the others to the default', () => {
    const sut = new WsConnectionCounter(1, { dashboard: 3 });
    for (let i = 0; i < 3; i++) sut.admit('dashboard', socket());
    sut.admit('bot', socket());

    expect(() => sut.admit('dashboard', socket())).toThrow(
      expect.objectContaining({
        extensions: { cap: 'connections', limit: 3 },
        message: expect.stringContaining('streams.clients.dashboard.maxConnections'),
      }),
    );
    expect(() => sut.admit('bot', socket())).toThrow(
      expect.objectContaining({ extensions: { cap: 'connections', limit: 1 } }),
    );
  });

  it('gives the slot back when the socket closes, handshake done or not', async () => {
    const sut = new WsConnectionCounter(1);
    const first = socket();
    sut.admit('bot', first);
    first.destroy();
    await new Promise((resolve) => first.once('close', resolve));
    expect(sut.count('bot')).toBe(0);
    expect(() => sut.admit('bot', socket())).not.toThrow();
  });
});
