import { CATALOG_BUCKET_NAMES, CATALOG_ROUTE_NAMES, catalogTtlSeconds } from '@lib/catalog';
import { EXCHANGE_BUCKET_NAMES } from '@lib/exchange';
import { RETAIL_BUCKET_NAMES } from '@lib/retail';

import { GATEWAY_BUCKET_NAMES, GatewayAppConfigSchema } from '../apps/gateway/src/config/gateway-config.schema.js';

/** The smallest config the schema accepts: the running environment's addresses. */
const base = {
  environment: 'development',
  environments: {
    development: {
      authUrl: 'http://a',
      exchangeUrl: 'http://b',
      grpcTarget: 'c:1',
      retailUrl: 'http://d',
      catalogUrl: 'http://e',
    },
  },
};
const pathsOf = (input: object) =>
  GatewayAppConfigSchema.safeParse({ ...base, ...input }).error?.issues.map((i) => i.path.join('.')) ?? [];

describe('the config schema the gateway assembles from its libs', () => {
  it('knows every bucket the surface libs declare, and no other', () => {
    expect([...GATEWAY_BUCKET_NAMES].sort()).toEqual(
      [...RETAIL_BUCKET_NAMES, ...EXCHANGE_BUCKET_NAMES, ...CATALOG_BUCKET_NAMES].sort(),
    );
    const everyBucket = Object.fromEntries(GATEWAY_BUCKET_NAMES.map((name) => [name, { limit: 1 }]));
    expect(pathsOf({ limits: { buckets: everyBucket } })).toEqual([]);
  });

  it('refuses, at start, an override or a team share naming no declared bucket, and a TTL naming no catalog route', () => {
    const paths = pathsOf({
      limits: { buckets: { 'retail.orders.delete': { limit: 1 } } },
      teams: [{ id: 'x', shares: { 'retail.ord': 0.5, 'exchange.orders': 0.5, '*': 0.1 } }],
      catalog: { ttlSeconds: { sports: 1, widgets: 5 } },
    });
    expect(paths).toEqual(
      expect.arrayContaining(['limits.buckets', 'teams.0.shares.retail.ord', 'catalog.ttlSeconds.widgets']),
    );
    expect(paths).not.toContain('teams.0.shares.exchange.orders');
    expect(paths).not.toContain('catalog.ttlSeconds.sports');
  });

  it('keeps every catalog TTL default, and applies an override to its route only', () => {
    const config = GatewayAppConfigSchema.parse({ ...base, catalog: { ttlSeconds: { sports: 1 } } });
    const ttl = catalogTtlSeconds(config.catalog.ttlSeconds);
    expect(Object.keys(ttl).sort()).toEqual([...CATALOG_ROUTE_NAMES].sort());
    expect(ttl).toMatchObject({
      sports: 1,
      events: 5,
      book: 1,
      bbo: 1,
      series: 60,
      teams: 60,
      search: 5,
      leagueEvents: 5,
    });
  });
});
