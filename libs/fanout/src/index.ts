export { HubClient, SLOW_CONSUMER_CLOSE_CODE, type HubClientOptions } from './client/hub.client.js';
export type { ClusterOptions } from './cluster/redis.coordinator.js';
export type {
  CapacitySettings,
  PoolLimits,
  PoolUsage,
  StreamCap,
  StreamHolder,
} from './capacity/stream-capacity.types.js';
export { StreamCapacityError, StreamCapacityUnavailableError, UnknownTopicError } from './fanout.error.js';
export { FANOUT_SETTINGS, FanoutModule } from './fanout.module.js';
export type { FanoutHubOptions, FanoutSettings } from './fanout.options.js';
export { FanoutHub, type ResumePoint, type SubscribeOptions, type TopicInfo } from './hub/fanout.hub.js';
export type { FrameMessage, FrameType } from './hub/frame.codec.js';
export { FirstSnapshot } from './source/first-snapshot.js';
export { TOPIC_SLUG, type TopicFamily, topicPatternOf, topicPrefixOf } from './source/topic-family.js';
export { TopicSourceRegistry, type TopicMatch, type TopicRoute } from './source/topic-source.registry.js';
export {
  ACCOUNT_POLICY,
  MARKET_DATA_POLICY,
  latestFold,
  type SnapshotFold,
  type ReplayWindowPolicy,
  type TopicPolicy,
  type TopicSink,
  type TopicSource,
  type TopicView,
  type Viewer,
} from './source/topic-source.types.js';
