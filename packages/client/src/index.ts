export { GatewayProblem } from './problem.js';
export { createGatewayClient, preferWait, wsTicket, type GatewayClient, type GatewayClientOptions } from './rest.js';
export type { paths, components } from './schema.js';
export {
  GatewayStream,
  type OpenSocket,
  type StreamError,
  type StreamFrame,
  type StreamOptions,
  type WebSocketLike,
} from './stream.js';
