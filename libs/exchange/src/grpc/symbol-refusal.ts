import { status as GrpcStatus } from '@grpc/grpc-js';

import type { StreamStatus } from './stream-status.error.js';

/**
 * Statuses with which the exchange refuses a market-data stream for what it carries (a symbol it does
 * not list, or no longer lists), not for who asked: one symbol's refusal must not cost the others
 * their stream. Missing scope, the firm's streams all taken and the like refuse the whole stream.
 */
const SYMBOL_REFUSALS = new Set<GrpcStatus>([GrpcStatus.INVALID_ARGUMENT, GrpcStatus.NOT_FOUND]);

export function isSymbolRefusal(status: StreamStatus): boolean {
  return SYMBOL_REFUSALS.has(status.code);
}

/**
 * The carried symbols a refusal's details name ("unknown symbols: a, b"): the words of the message,
 * split on spaces and punctuation a symbol does not contain, that are carried symbols. The exchange
 * documents no format, so a message naming none leaves the culprit to be searched for.
 */
export function namedSymbols(details: string, carried: ReadonlySet<string>): string[] {
  const words = new Set(details.split(/[\s,;:'"()[\]{}]+/));
  return [...carried].filter((symbol) => words.has(symbol));
}

/**
 * How a refusal no message attributes is narrowed down: the symbols it may be about split in two,
 * those that streamed before first (they are the likelier innocents); the first half stays on the
 * stream, the second waits until the stream is healthy again. Each refusal halves the suspects, so a
 * culprit among n symbols is found in about log2(n) refusals, all on the lane's one stream.
 */
export function splitSuspects(suspects: readonly string[], streamedBefore: (symbol: string) => boolean): string[][] {
  const ordered = [...suspects.filter(streamedBefore), ...suspects.filter((symbol) => !streamedBefore(symbol))];
  const half = Math.ceil(ordered.length / 2);
  return [ordered.slice(0, half), ordered.slice(half)];
}
