import type { IncomingMessage } from 'node:http';

import { ClientAddresses } from './client-address.js';

const request = (peer: string, forwarded?: string | string[]) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
  }) as unknown as IncomingMessage;

describe('ClientAddresses', () => {
  const behindProxies = new ClientAddresses(true, ['127.0.0.0/8', '10.0.0.0/8', 'fd00::/8']);

  it('takes the right-most X-Forwarded-For entry that is not a trusted proxy', () => {
    expect(behindProxies.of(request('127.0.0.1', '192.0.2.1, 203.0.113.7, 10.0.0.1'))).toBe('203.0.113.7');
    expect(behindProxies.of(request('::ffff:10.1.2.3', ['192.0.2.1', '203.0.113.7']))).toBe('203.0.113.7');
  });

  it('never believes what the client wrote left of its own address', () => {
    for (const forged of ['198.51.100.1', '10.0.0.5', 'not-an-address', '']) {
      expect(behindProxies.of(request('10.0.0.1', `${forged}, 203.0.113.7`))).toBe('203.0.113.7');
    }
  });

  it('ignores the header when the peer itself is no trusted proxy, or trustProxy is off', () => {
    expect(behindProxies.of(request('203.0.113.7', '198.51.100.1'))).toBe('203.0.113.7');
    expect(new ClientAddresses(false, ['127.0.0.0/8']).of(request('127.0.0.1', '198.51.100.1'))).toBe('127.0.0.1');
  });

  it('answers the left-most hop when every hop is a trusted proxy', () => {
    expect(behindProxies.of(request('127.0.0.1', '10.0.0.9, 10.0.0.1'))).toBe('10.0.0.9');
    expect(behindProxies.trusts('fd00::1')).toBe(true);
    expect(behindProxies.trusts('2001:db8::1')).toBe(false);
  });
});
