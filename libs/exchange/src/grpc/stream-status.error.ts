import { status as GrpcStatus } from '@grpc/grpc-js';
import type { DomainError } from '@lib/core';
import { grpcStatusError, grpcStatusName } from '@lib/upstream';

import type { StreamKind } from './exchange-stream.metrics.js';

/** The final status of a gRPC call: the server's, or one the client gave a call it ended itself. */
export interface StreamStatus {
  code: GrpcStatus;
  details: string;
}

/** Statuses a retry cannot fix: a subscription refused with one of these fails its `open`. */
const REFUSALS = new Set<GrpcStatus>([
  GrpcStatus.PERMISSION_DENIED,
  GrpcStatus.INVALID_ARGUMENT,
  GrpcStatus.NOT_FOUND,
  GrpcStatus.UNIMPLEMENTED,
  GrpcStatus.FAILED_PRECONDITION,
  GrpcStatus.OUT_OF_RANGE,
  // The firm holds its 20 streams (upstream-facts): waiting would leave the subscriber hanging.
  GrpcStatus.RESOURCE_EXHAUSTED,
]);

export function isRefusal(status: StreamStatus): boolean {
  return REFUSALS.has(status.code);
}

export function statusName(code: GrpcStatus): string {
  return grpcStatusName(code);
}

/** How a stream kind reads in an error message, so a client sees which of the exchange's streams failed. */
const STREAM_NAMES: Record<StreamKind, string> = {
  marketData: 'market-data',
  orders: 'order',
  dropCopy: 'drop-copy',
  trades: 'trade-capture',
  positions: 'position-change',
  instrumentState: 'instrument-state',
};

/** A failed subscription as the problem the gateway answers with (the gRPC table in @lib/upstream), naming the stream kind; the gRPC status is kept under `upstream`. */
export function streamRefused(kind: StreamKind, status: StreamStatus): DomainError {
  return grpcStatusError(`exchange ${STREAM_NAMES[kind]} stream`, status, {
    upstream: { stream: kind, grpcStatus: statusName(status.code), details: status.details },
  });
}
