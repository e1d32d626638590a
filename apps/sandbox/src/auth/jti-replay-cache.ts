/**
 * Remembers accepted assertion ids (spec §5.1: "a reused value fails"). Entries are kept in
 * insertion order, which is also forget-time order while the clock runs forward, so expired ones
 * are dropped from the front; a clock moved backwards only makes some stay longer, never shorter.
 */
export class JtiReplayCache {
  private readonly forgetAt = new Map<string, number>();

  constructor(private readonly retentionMs: number) {}

  /** True when the id is new (it is now remembered); false when it was already used. */
  remember(id: string, nowMs: number): boolean {
    this.sweep(nowMs);
    const until = this.forgetAt.get(id);
    if (until !== undefined && until > nowMs) return false;
    this.forgetAt.delete(id);
    this.forgetAt.set(id, nowMs + this.retentionMs);
    return true;
  }

  get size(): number {
    return this.forgetAt.size;
  }

  private sweep(nowMs: number): void {
    for (const [id, until] of this.forgetAt) {
      if (until > nowMs) return;
      this.forgetAt.delete(id);
    }
  }
}
