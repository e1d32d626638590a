/**
 * Where a resumable feed goes on from: the exchange's resume token of the last batch it stored, and
 * the exchange time (epoch ms) of the newest record delivered up to it. The time is the way back in
 * when the exchange refuses the token (it restarted empty, or its log moved past it): the feed then
 * resumes by `resume_time` from it, deduplicating what it delivered already.
 */
export interface ResumeCheckpoint {
  token: Buffer;
  atMs?: number;
}

/** `<token base64>@<ms>`; base64 never holds `@`. A bare token (written before times were kept) reads with no time. */
export function encodeCheckpoint({ token, atMs }: ResumeCheckpoint): string {
  return atMs === undefined ? token.toString('base64') : `${token.toString('base64')}@${atMs}`;
}

export function decodeCheckpoint(text: string): ResumeCheckpoint | undefined {
  const [token, at] = text.trim().split('@');
  if (!token) return undefined;
  const atMs = at === undefined ? undefined : Number(at);
  return { token: Buffer.from(token, 'base64'), atMs: atMs !== undefined && Number.isFinite(atMs) ? atMs : undefined };
}

/** A record's `transactTime` (a protobuf Timestamp as decoded: seconds as a string) in epoch ms. */
export function transactTimeOf(record: Record<string, unknown>): number | undefined {
  const time = record.transactTime as { seconds?: unknown; nanos?: unknown } | null | undefined;
  if (!time || time.seconds === undefined) return undefined;
  const ms = Number(time.seconds) * 1000 + Math.floor(Number(time.nanos ?? 0) / 1e6);
  return Number.isFinite(ms) ? ms : undefined;
}
