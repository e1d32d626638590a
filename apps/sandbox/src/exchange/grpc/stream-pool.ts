import { status as GrpcStatus } from '@grpc/grpc-js';

/** One open stream of any streaming call, as the firm's pooled budget sees it. */
export interface PooledStream {
  /** The call's method name, e.g. `CreateOrderSubscription`. */
  readonly call: string;
  readonly firm: string;
  readonly clientId: string;
  end(code: GrpcStatus, details: string, reason: string): void;
}

export interface StreamPoolLimits {
  maxStreamsPerFirm: number;
  ingressPerSecond: number;
  ingressWindowSeconds: number;
}

export interface StreamFilter {
  call?: string;
  firm?: string;
  clientId?: string;
}

/**
 * upstream-facts, operator's streaming rules: at most 20 concurrent streams per firm across every
 * streaming call together, and 100 client messages/s per firm averaged over a minute. Counters
 * (`/_sandbox/counters`): `grpc.streams.open`, `.open.call.<call>`, `.open.firm.<firm>`, `.opened.<call>`,
 * `.refused.resource_exhausted`, `.ingress.refused`, `.ended.<reason>`, `.reset_before_start` (a call the
 * client reset before its handler ran: it never takes a place).
 */
export class StreamPool {
  private readonly streams = new Set<PooledStream>();
  /** Per firm: client messages per second (epoch second → count) within the window. */
  private readonly ingress = new Map<string, Map<number, number>>();
  /** While set, the stream service is down for the matching calls (`down`). */
  private outage?: StreamFilter;

  constructor(
    private readonly limits: StreamPoolLimits,
    private readonly count: (name: string, by?: number) => void,
    private readonly now: () => number,
  ) {}

  /** Takes a place in the firm's pool, or false when the firm holds its maximum already. */
  admit(stream: PooledStream): boolean {
    if (this.open({ firm: stream.firm }) >= this.limits.maxStreamsPerFirm) {
      this.count('grpc.streams.refused.resource_exhausted');
      return false;
    }
    this.streams.add(stream);
    this.move(stream, 1);
    this.count(`grpc.streams.opened.${stream.call}`);
    return true;
  }

  /** A call the client reset before its handler ran: counted, never admitted. */
  resetBeforeStart(): void {
    this.count('grpc.streams.reset_before_start');
  }

  release(stream: PooledStream, reason: string): void {
    if (!this.streams.delete(stream)) return;
    this.move(stream, -1);
    this.count(`grpc.streams.ended.${reason}`);
  }

  open(filter: StreamFilter = {}): number {
    return this.matching(filter).length;
  }

  /** Open streams by call and by firm, for the operator's view. */
  view(): { byCall: Record<string, number>; byFirm: Record<string, number> } {
    const byCall: Record<string, number> = {};
    const byFirm: Record<string, number> = {};
    for (const { call, firm } of this.streams) {
      byCall[call] = (byCall[call] ?? 0) + 1;
      byFirm[firm] = (byFirm[firm] ?? 0) + 1;
    }
    return { byCall, byFirm };
  }

  /** Ends the matching streams with `code` (an operator fault: restart, revoked key); returns how many. */
  cut(filter: StreamFilter, code: GrpcStatus, details: string): number {
    const hit = this.matching(filter);
    for (const stream of hit) stream.end(code, details, 'cut');
    return hit.length;
  }

  /**
   * The stream service goes down for the matching calls (an operator outage): their open streams end
   * UNAVAILABLE and new ones are refused so (`refuses`) until `up`; returns how many were cut.
   */
  down(filter: StreamFilter): number {
    this.outage = filter;
    return this.cut(filter, GrpcStatus.UNAVAILABLE, 'the stream service is unavailable');
  }

  up(): void {
    this.outage = undefined;
  }

  /** True while an outage covers this stream's call (counted as `grpc.streams.refused.unavailable`). */
  refuses(stream: PooledStream): boolean {
    if (this.outage === undefined || !covers(this.outage, stream)) return false;
    this.count('grpc.streams.refused.unavailable');
    return true;
  }

  /**
   * Counts one client-to-server message of `firm`; false when it would take the firm's average over
   * the window past the published rate (the message is then refused, RESOURCE_EXHAUSTED).
   */
  takeIngress(firm: string): boolean {
    const second = Math.floor(this.now() / 1000);
    const window = this.ingress.get(firm) ?? new Map<number, number>();
    this.ingress.set(firm, window);
    let total = 0;
    for (const [at, n] of window) {
      if (at <= second - this.limits.ingressWindowSeconds) window.delete(at);
      else total += n;
    }
    if (total >= this.limits.ingressPerSecond * this.limits.ingressWindowSeconds) {
      this.count('grpc.streams.ingress.refused');
      return false;
    }
    window.set(second, (window.get(second) ?? 0) + 1);
    return true;
  }

  private matching(filter: StreamFilter): PooledStream[] {
    return [...this.streams].filter((s) => covers(filter, s));
  }

  private move(stream: PooledStream, by: number): void {
    this.count('grpc.streams.open', by);
    this.count(`grpc.streams.open.call.${stream.call}`, by);
    this.count(`grpc.streams.open.firm.${stream.firm}`, by);
  }
}

const covers = (filter: StreamFilter, s: PooledStream): boolean =>
  (filter.call === undefined || s.call === filter.call) &&
  (filter.firm === undefined || s.firm === filter.firm) &&
  (filter.clientId === undefined || s.clientId === filter.clientId);
