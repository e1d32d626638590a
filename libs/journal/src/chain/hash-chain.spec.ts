import { canonicalJson } from './canonical-json.js';
import { ChainVerifier, type ChainRow, GENESIS_HASH, chainHash } from './hash-chain.js';

function chain(count: number): ChainRow[] {
  const rows: ChainRow[] = [];
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq <= count; seq++) {
    const at = new Date(1_700_000_000_000 + seq);
    const record = canonicalJson({ seq, at: at.toISOString(), kind: 'received', clordId: `c${seq}`, data: { n: seq } });
    const hash = chainHash(prevHash, seq, record);
    rows.push({ seq, at, kind: 'received', clordId: `c${seq}`, orderId: null, record, prevHash, hash });
    prevHash = hash;
  }
  return rows;
}

function verify(rows: ChainRow[]): ChainVerifier {
  const verifier = new ChainVerifier();
  for (const row of rows) verifier.check(row);
  return verifier;
}

describe('the journal hash chain', () => {
  it('writes the same canonical JSON whatever the key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: undefined } })).toBe(
      canonicalJson({ a: { d: [2, { e: 0, f: 1 }] }, b: 1 }),
    );
  });

  it('verifies an intact chain', () => {
    const result = verify(chain(5));
    expect(result.breaks).toEqual([]);
    expect(result.checked).toBe(5);
  });

  it('names an altered record, an altered column, a missing record and a reordered one', () => {
    const rows = chain(6);
    rows[1] = { ...rows[1]!, record: rows[1]!.record.replace('"n":2', '"n":9') };
    rows[2] = { ...rows[2]!, clordId: 'someone-else' };
    const result = verify([rows[0]!, rows[1]!, rows[2]!, rows[4]!, rows[3]!, rows[5]!]);
    const at = (seq: number) => result.breaks.filter((b) => b.seq === seq).map((b) => b.reason);
    expect(at(2)).toEqual([expect.stringContaining('altered')]);
    expect(at(3)).toEqual([expect.stringContaining('columns disagree')]);
    expect(at(5).join(' ')).toContain('missing');
    expect(at(4).length).toBeGreaterThan(0);
  });

  it('detects a record re-hashed by an intruder: the next record no longer chains to it', () => {
    const rows = chain(3);
    const forged = rows[1]!.record.replace('"n":2', '"n":7');
    rows[1] = { ...rows[1]!, record: forged, hash: chainHash(rows[1]!.prevHash, 2, forged) };
    expect(verify(rows).breaks).toEqual([{ seq: 3, reason: expect.stringContaining('previous hash') }]);
  });
});
