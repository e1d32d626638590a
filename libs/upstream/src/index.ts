export { UpstreamModule } from './upstream.module.js';
export {
  UpstreamCalls,
  type UpstreamCall,
  type UpstreamCredentials,
  type UpstreamTry,
} from './pipeline/upstream-calls.service.js';
export {
  type SendGuard,
  type SendHook,
  type UpstreamSend,
  announceSend,
  checkSend,
  entersOrders,
  guardUpstreamSend,
  onUpstreamSend,
} from './pipeline/send-hook.js';
export {
  HTTP_STATUS_TABLE,
  httpRowOf,
  isLatencyReject,
  jsonOrUndefined,
  okOrThrow,
  parseBody,
  unusableAnswer,
  upstreamError,
  upstreamThrottleOf,
  type HttpRow,
  type UpstreamAnswer,
  type UpstreamFailure,
} from './mapping/http-outcome.js';
export {
  GRPC_STATUS_TABLE,
  grpcCodeOf,
  grpcStatusError,
  grpcStatusName,
  type GrpcOutcome,
} from './mapping/grpc-outcome.js';
export {
  TRANSPORT_BY_ERROR_CODE,
  TRANSPORT_BY_ERROR_NAME,
  TRANSPORT_OUTCOMES,
  transportOutcomeOf,
  upstreamTransportError,
  type TransportOutcome,
} from './mapping/transport-outcome.js';
