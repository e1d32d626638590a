import { Test } from '@nestjs/testing';

import { FanoutHub } from './hub/fanout.hub.js';
import { FanoutModule } from './fanout.module.js';
import { TopicSourceRegistry } from './source/topic-source.registry.js';
import { MARKET_DATA_POLICY } from './source/topic-source.types.js';
import { FakeSource, HubServer, TestClient } from './testing/hub.fixture.js';

describe(FanoutModule.name, () => {
  it('provides one hub, single-instance without Redis, and closes its upstreams on shutdown', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [FanoutModule.forRoot({ lingerMs: 10_000 })],
    }).compile();
    const source = new FakeSource();
    moduleRef.get(TopicSourceRegistry).register('test.market.', source, MARKET_DATA_POLICY);
    const hub = moduleRef.get(FanoutHub);
    const server = await HubServer.start(hub);
    const client = await TestClient.connect(server.url);
    await client.subscribe('test.market.alpha');
    expect(hub.info('test.market.alpha')?.mode).toBe('holder');

    await moduleRef.close();
    expect(source.closed).toEqual(['test.market.alpha']);
    client.close();
    await server.close();
  });
});
