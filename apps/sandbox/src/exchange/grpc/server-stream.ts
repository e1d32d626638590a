import { type Metadata, type ServerDuplexStream, type ServerWritableStream, status as GrpcStatus } from '@grpc/grpc-js';

import type { SandboxConfig } from '../../config/sandbox-config.schema.js';
import {
  type ExchangeAuthorizationParts,
  type ExchangeCaller,
  type ExchangeRequirement,
  authorizeExchangeCall,
} from '../exchange-authorization.js';
import type { PooledStream, StreamPool } from './stream-pool.js';

/** What the start of a stream needs: the exchange's call check, the firm's ingress allowance and its published figure. */
export interface StreamGateParts extends ExchangeAuthorizationParts {
  readonly config: Pick<SandboxConfig['grpc'], 'ingressPerSecond'>;
  readonly streams: Pick<StreamPool, 'takeIngress'>;
}

/** A grpc-js server call that streams responses: server streaming or bidirectional. */
export type StreamingCall<Req = unknown, Res = unknown> = ServerWritableStream<Req, Res> | ServerDuplexStream<Req, Res>;

/** Ends a call before it started streaming; grpc-js turns an 'error' on a server stream into its status. */
export function refuse(call: StreamingCall, code: GrpcStatus, details: string): void {
  call.emit('error', { code, details });
}

/**
 * Whether the HTTP/2 stream under a call is closed already. grpc-js hands a cancel only to a handler that
 * exists: one that comes between the request's headers and its message reaches no one, and the call then
 * looks open for ever (its writes dropped). The exchange sees the stream reset; so must the sandbox, or a
 * cancelled stream keeps a place in the firm's pool. Reads grpc-js internals (1.14: `call.call` is the
 * server call holding the HTTP/2 stream, possibly behind interceptors' `nextCall`); where they are not
 * found the call counts as open.
 */
export function transportGone(call: StreamingCall): boolean {
  let layer: unknown = (call as unknown as { call?: unknown }).call;
  for (let depth = 0; depth < 4 && typeof layer === 'object' && layer !== null; depth++) {
    const { stream, nextCall, cancelled } = layer as {
      stream?: { destroyed?: boolean; closed?: boolean };
      nextCall?: unknown;
      cancelled?: boolean;
    };
    if (stream) return cancelled === true || stream.destroyed === true || stream.closed === true;
    layer = nextCall;
  }
  return false;
}

function metadataValue(metadata: Metadata, key: string): string | undefined {
  const [value] = metadata.get(key);
  return typeof value === 'string' ? value : undefined;
}

/**
 * The start of every streaming call, in upstream's order: token (UNAUTHENTICATED), scope and
 * participant (PERMISSION_DENIED), then the firm's ingress allowance for the request message
 * (RESOURCE_EXHAUSTED). This is the only place a stream is authenticated: it then outlives its token
 * (upstream-facts, operator's streaming rules). Refuses the call and returns undefined on failure.
 */
export function authenticateStream(
  parts: StreamGateParts,
  call: StreamingCall,
  requirement: ExchangeRequirement,
  refused: (reason: string) => void,
  countsRequest = true,
): ExchangeCaller | undefined {
  const credentials = {
    authorization: metadataValue(call.metadata, 'authorization'),
    participantId: metadataValue(call.metadata, 'x-participant-id'),
  };
  const auth = authorizeExchangeCall(parts, credentials, requirement);
  if (!auth.ok) {
    refused(auth.reason);
    refuse(call, auth.grpcCode, auth.message);
    return undefined;
  }
  if (countsRequest && !parts.streams.takeIngress(auth.caller.client.firm)) {
    refused('ingress');
    refuse(call, GrpcStatus.RESOURCE_EXHAUSTED, ingressRefusal(parts));
    return undefined;
  }
  return auth.caller;
}

export function ingressRefusal(parts: StreamGateParts): string {
  return `more than ${parts.config.ingressPerSecond} client messages/s per firm averaged over a minute`;
}

/**
 * One accepted stream of any service: its place in the firm's pool, heartbeats, and one end.
 * Subclasses write their messages and release what they hold in `onEnd`.
 */
export abstract class ServerStream<Res> implements PooledStream {
  private ended = false;
  private heartbeat?: NodeJS.Timeout;

  protected constructor(
    protected readonly grpc: StreamingCall<unknown, Res>,
    readonly call: string,
    readonly firm: string,
    readonly clientId: string,
    private readonly pool: StreamPool,
  ) {}

  get isOpen(): boolean {
    return !this.ended;
  }

  end(code: GrpcStatus, details: string, reason: string): void {
    if (this.ended) return;
    this.finish(reason);
    if (code === GrpcStatus.OK) this.grpc.end();
    else this.grpc.emit('error', { code, details });
  }

  /** Takes a place in the firm's pool; refuses the call UNAVAILABLE during an outage, RESOURCE_EXHAUSTED when the pool is full. */
  protected join(maxStreams: number): boolean {
    // A client may cancel before the handler runs: its 'cancelled' event is gone, so it must not take a place.
    if (this.grpc.cancelled || transportGone(this.grpc)) {
      this.pool.resetBeforeStart();
      this.ended = true;
      return false;
    }
    if (this.pool.refuses(this)) {
      refuse(this.grpc, GrpcStatus.UNAVAILABLE, 'the stream service is unavailable');
      this.ended = true;
      return false;
    }
    if (!this.pool.admit(this)) {
      refuse(
        this.grpc,
        GrpcStatus.RESOURCE_EXHAUSTED,
        `firm ${this.firm} already holds ${maxStreams} concurrent streams`,
      );
      this.ended = true;
      return false;
    }
    this.grpc.on('cancelled', () => this.finish('cancelled'));
    return true;
  }

  protected heartbeatEvery(ms: number, beat: () => void): void {
    // A cancel grpc-js delivered to no one (see transportGone) is found by the next beat at the latest.
    this.heartbeat = setInterval(() => (transportGone(this.grpc) ? this.finish('cancelled') : beat()), ms).unref();
  }

  protected write(message: Res): void {
    if (!this.ended) this.grpc.write(message);
  }

  protected abstract onEnd(reason: string): void;

  private finish(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    this.pool.release(this, reason);
    this.onEnd(reason);
  }
}
