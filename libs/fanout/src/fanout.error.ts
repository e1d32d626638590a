import { DomainError, ErrorCode, NotFoundError } from '@lib/core';

import type { StreamCap } from './capacity/stream-capacity.types.js';

/** A topic no source serves; `message` says why when the source knows more (the exchange lists no such symbol). */
export class UnknownTopicError extends NotFoundError {
  constructor(
    readonly topic: string,
    message = `No stream serves the topic "${topic}".`,
  ) {
    super(message);
  }
}

/** A subscription refused by a stream cap: which cap, and its value. */
export class StreamCapacityError extends DomainError {
  constructor(
    readonly topic: string,
    readonly cap: StreamCap,
    readonly limit: number,
  ) {
    super(ErrorCode.RATE_LIMITED, `${CAP_NAMES[cap]} is ${limit}: "${topic}" would need one more.`, {
      extensions: { cap, limit },
    });
  }
}

const CAP_NAMES: Record<StreamCap, string> = {
  client: "this client's cap on distinct exchange stream topics",
  team: "this team's share of the firm's exchange streams",
  firm: "the firm's exchange streams the teams may hold",
};

/** Redis cannot count the streams now; admitting a new one blind could exceed a cap. */
export class StreamCapacityUnavailableError extends DomainError {
  constructor(readonly topic: string) {
    super(
      ErrorCode.SERVICE_UNAVAILABLE,
      `Stream capacity cannot be counted right now, so "${topic}" was not opened: try again shortly.`,
    );
  }
}
