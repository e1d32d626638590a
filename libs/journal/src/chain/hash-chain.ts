import { createHash } from 'node:crypto';

/** The previous hash of the first record. */
export const GENESIS_HASH = '0'.repeat(64);

/** A record's hash covers the previous record's hash, its sequence number and its whole text. */
export function chainHash(prevHash: string, seq: number, record: string): string {
  return createHash('sha256').update(`${prevHash}\n${seq}\n${record}`).digest('hex');
}

/** A stored journal row as the verifier reads it. */
export interface ChainRow {
  seq: number;
  at: Date;
  kind: string;
  clordId: string | null;
  orderId: string | null;
  record: string;
  prevHash: string;
  hash: string;
}

/** What broke the chain at one record. */
export interface ChainBreak {
  seq: number;
  reason: string;
}

/** Carries the verification over pages of rows in seq order; every break is named. */
export class ChainVerifier {
  private lastSeq = 0;
  private lastHash = GENESIS_HASH;
  readonly breaks: ChainBreak[] = [];
  checked = 0;

  check(row: ChainRow): void {
    this.checked++;
    const fail = (reason: string) => this.breaks.push({ seq: row.seq, reason });
    if (row.seq !== this.lastSeq + 1)
      fail(`expected record ${this.lastSeq + 1} next: ${row.seq - this.lastSeq - 1} record(s) missing`);
    if (row.prevHash !== this.lastHash) fail('its previous hash is not the hash of the record before it');
    if (chainHash(row.prevHash, row.seq, row.record) !== row.hash)
      fail('its hash does not match its content (altered)');
    this.checkColumns(row, fail);
    this.lastSeq = row.seq;
    this.lastHash = row.hash;
  }

  /** The indexed columns repeat fields of the hashed record: they must agree with it. */
  private checkColumns(row: ChainRow, fail: (reason: string) => void): void {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(row.record) as Record<string, unknown>;
    } catch {
      fail('its record is not JSON');
      return;
    }
    const same =
      parsed.kind === row.kind &&
      (parsed.clordId ?? null) === row.clordId &&
      (parsed.orderId ?? null) === row.orderId &&
      parsed.seq === row.seq &&
      new Date(String(parsed.at)).getTime() === row.at.getTime();
    if (!same) fail('its columns disagree with its hashed record (altered)');
  }
}
