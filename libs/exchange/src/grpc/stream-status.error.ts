import { status as GrpcStatus } from '@grpc/grpc-js';
import { DomainError, ErrorCode } from '@lib/core';

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
  return GrpcStatus[code] ?? String(code);
}

/** How a refused subscription reads to the gateway's clients; anything else is UPSTREAM_ERROR. */
const ERROR_CODES: Partial<Record<GrpcStatus, ErrorCode>> = {
  [GrpcStatus.INVALID_ARGUMENT]: ErrorCode.UPSTREAM_BAD_REQUEST,
  [GrpcStatus.OUT_OF_RANGE]: ErrorCode.UPSTREAM_BAD_REQUEST,
  [GrpcStatus.FAILED_PRECONDITION]: ErrorCode.UPSTREAM_BAD_REQUEST,
  [GrpcStatus.UNAUTHENTICATED]: ErrorCode.UPSTREAM_UNAUTHORIZED,
  [GrpcStatus.PERMISSION_DENIED]: ErrorCode.UPSTREAM_FORBIDDEN,
  [GrpcStatus.NOT_FOUND]: ErrorCode.UPSTREAM_NOT_FOUND,
  [GrpcStatus.RESOURCE_EXHAUSTED]: ErrorCode.UPSTREAM_RATE_LIMITED,
  [GrpcStatus.DEADLINE_EXCEEDED]: ErrorCode.UPSTREAM_TIMEOUT,
  [GrpcStatus.UNAVAILABLE]: ErrorCode.UPSTREAM_UNAVAILABLE,
};

/** How a stream kind reads in an error message, so a client sees which of the exchange's streams failed. */
const STREAM_NAMES: Record<StreamKind, string> = {
  marketData: 'market-data',
  orders: 'order',
  dropCopy: 'drop-copy',
  trades: 'trade-capture',
  positions: 'position-change',
  instrumentState: 'instrument-state',
};

/** A failed subscription as the problem the gateway answers with, naming the stream kind; the gRPC status is kept under `upstream`. */
export function streamRefused(kind: StreamKind, status: StreamStatus): DomainError {
  const code = ERROR_CODES[status.code] ?? ErrorCode.UPSTREAM_ERROR;
  const headers: Record<string, string> = code === ErrorCode.UPSTREAM_RATE_LIMITED ? { 'Retry-After': '1' } : {};
  return new DomainError(code, `The exchange ${STREAM_NAMES[kind]} stream ended with ${statusName(status.code)}: ${status.details}`, {
    headers,
    extensions: { upstream: { stream: kind, grpcStatus: statusName(status.code), details: status.details } },
  });
}
