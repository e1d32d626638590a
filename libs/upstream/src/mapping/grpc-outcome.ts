import { status as GrpcStatus } from '@grpc/grpc-js';
import { DomainError, ErrorCode } from '@lib/core';

/** The final status of a gRPC call: the server's, or one the client gave a call it ended itself. */
export interface GrpcOutcome {
  code: GrpcStatus;
  details: string;
}

/** The gRPC table: how a refused call reads to the gateway's clients; a status not listed is UPSTREAM_ERROR. */
export const GRPC_STATUS_TABLE: Readonly<Partial<Record<GrpcStatus, ErrorCode>>> = {
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

export function grpcCodeOf(code: GrpcStatus): ErrorCode {
  return GRPC_STATUS_TABLE[code] ?? ErrorCode.UPSTREAM_ERROR;
}

export function grpcStatusName(code: GrpcStatus): string {
  return GrpcStatus[code] ?? String(code);
}

/**
 * A refused gRPC call as the problem the gateway answers with; `call` names it for the client (e.g.
 * "exchange order stream"). A RESOURCE_EXHAUSTED says come back in a second (no Retry-After on gRPC).
 */
export function grpcStatusError(
  call: string,
  status: GrpcOutcome,
  extensions: Record<string, unknown> = {},
): DomainError {
  const code = grpcCodeOf(status.code);
  const headers: Record<string, string> = code === ErrorCode.UPSTREAM_RATE_LIMITED ? { 'Retry-After': '1' } : {};
  return new DomainError(code, `The ${call} ended with ${grpcStatusName(status.code)}: ${status.details}`, {
    headers,
    extensions,
  });
}
