import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** `::ffff:10.0.0.1` as `10.0.0.1`, so one CIDR list covers both forms of an IPv4 peer. */
const plain = (address: string): string => MAPPED_V4.exec(address)?.[1] ?? address;

/**
 * Who the client is, for failed-login limits and `request.ip`. Behind `server.trustProxy` the
 * X-Forwarded-For chain is walked from the right, starting at the socket's peer: each address in
 * `server.trustedProxies` is a proxy that appended the one before it, and the first address that is
 * not one is the client. Entries left of it were written by the client and are never believed, so
 * rotating or forging them neither dodges a limit nor locks someone else out.
 */
export class ClientAddresses {
  private readonly trusted = new BlockList();

  constructor(
    private readonly trustProxy: boolean,
    trustedProxies: readonly string[],
  ) {
    for (const entry of trustedProxies) {
      const [address, bits] = entry.split('/');
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.trusted.addAddress(address, type);
      else this.trusted.addSubnet(address, Number(bits), type);
    }
  }

  /** Fastify's `trustProxy` option: whether a hop is a proxy to look past (the same list, so `request.ip` agrees). */
  readonly trusts = (address: string): boolean => {
    const candidate = plain(address);
    const family = isIP(candidate);
    return family !== 0 && this.trusted.check(candidate, family === 6 ? 'ipv6' : 'ipv4');
  };

  /** The client address of a raw request (an HTTP request or a WebSocket upgrade alike). */
  of(req: IncomingMessage): string {
    const peer = plain(req.socket.remoteAddress ?? 'unknown');
    if (!this.trustProxy || !this.trusts(peer)) return peer;
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((hop) => plain(hop.trim()))
      .filter((hop) => hop !== '');
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      client = hops[i];
      if (!this.trusts(client)) return client;
    }
    return client;
  }
}
