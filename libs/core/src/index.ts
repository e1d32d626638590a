export { IDENTITY_KEYWORD, IDENTITY_KINDS, type IdentityKind } from './auth/identity.js';
export { SCOPES, type Scope } from './auth/scopes.js';
export { Clock, ClockModule, httpDateMs, offsetFromDate, steadyNow, SystemClock, systemClock } from './clock/clock.js';
export { ConfigError, loadGatewayConfig, readYamlFile, validateConfig, type Env } from './config/config.loader.js';
export { ConfigModule, GATEWAY_CONFIG } from './config/config.module.js';
export {
  ClientSchema,
  ENVIRONMENT_NAMES,
  TeamSchema,
  CoreConfigSchema,
  hostPort,
  httpUrl,
  secretFile,
  type CoreConfig,
  type CoreConfigInput,
  type EnvironmentName,
  type HttpConfig,
  type RedisConfig,
} from './config/config.schema.js';
export {
  DomainError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  UnauthenticatedError,
  ValidationError,
  type DomainErrorOptions,
  type FieldError,
} from './errors/domain.error.js';
export { ErrorCode } from './errors/error-code.js';
export { assertUnreachable, httpStatusOf, titleOf } from './errors/http-status.js';
export { MAX_ECHO, PROBLEM_CONTENT_TYPE, clip, problemOf, toDomainError, type Problem } from './errors/problem.js';
export { HttpModule } from './http/http.module.js';
export {
  Bulkheads,
  InFlightLimitedError,
  type InFlightCall,
  type InFlightCap,
  type Lane,
  type OwnPool,
} from './http/bulkheads.js';
export { PathSegmentSchema, hasDotSegment, isDotOrEmptySegment, pathSegment, wireText } from './http/path-segment.js';
export { retryAfterOf } from './http/retry-after.js';
export { fullJitterDelay } from './retry/backoff.js';
export {
  UpstreamHttp,
  queryString,
  urlOf,
  type JsonCall,
  type JsonReply,
  type JsonRequest,
  type QueryValue,
  type UpstreamRequest,
} from './http/upstream-http.service.js';
export {
  LOG_DESTINATION,
  LoggingModule,
  REQUEST_ID_HEADER,
  pinoOptions,
  requestIdOf,
  type LoggingOptions,
} from './logging/logging.module.js';
export { REDACTED, REDACT_PATHS, SECRET_NAMES, isSecretName, redactUrl, scrubText } from './logging/redaction.js';
export { MetricsModule, MetricsRegistry } from './metrics/metrics.registry.js';
export { type CounterSeries, type HistogramSeries, SeriesCounter, SeriesHistogram } from './metrics/series.js';
export { createRedisClient, duplicateRedis, nextRedisEvent, type RedisClient } from './redis/redis.factory.js';
export { REDIS, RedisModule } from './redis/redis.module.js';
export { LUA_GENERATION, LuaScript, generationCandidates, luaNowMs } from './redis/lua-script.js';
export { type LockMark, releaseLock, takeLock } from './redis/redis-lock.js';
export { INSTANCE_ID, InstanceIdModule, newInstanceId } from './instance/instance-id.js';
export {
  Readiness,
  ReadinessModule,
  type ReadinessCheck,
  type ReadinessReport,
  type ReadinessStatus,
} from './health/readiness.js';
