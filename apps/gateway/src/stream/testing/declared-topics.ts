import { EXCHANGE_TOPIC_FAMILIES } from '@lib/exchange';
import { type TopicSource, TopicSourceRegistry } from '@lib/fanout';
import { RETAIL_TOPIC_FAMILIES } from '@lib/retail';

import { OPS_TOPIC_FAMILY } from '../../console/ops-topic.source.js';

/** Every topic family the gateway's libs declare, each routed to a source that opens nothing (unit tests of admission). */
export function declaredTopics(): TopicSourceRegistry {
  const idle: TopicSource = { open: () => undefined, close: () => undefined };
  const registry = new TopicSourceRegistry();
  for (const family of [...RETAIL_TOPIC_FAMILIES, ...Object.values(EXCHANGE_TOPIC_FAMILIES), OPS_TOPIC_FAMILY])
    registry.add(family, idle);
  return registry;
}
