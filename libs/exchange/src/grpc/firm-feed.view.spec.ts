import { DROP_COPY_VIEW, TRADES_VIEW } from './firm-feed.view.js';

const ALICE = 'firms/F/users/alice';
const BOB = 'firms/F/users/bob';
const viewer = { key: ALICE, principals: new Set([ALICE]) };
const execution = (id: string, account: string, extra: Record<string, unknown> = {}) => ({
  id,
  tradeId: 'T1',
  lastShares: '1',
  lastPx: '40',
  order: {
    id: `O-${id}`,
    clordId: `c-${id}`,
    account,
    participant: account,
    submittingParticipant: account,
    symbol: 's',
    side: 'SIDE_BUY',
    ...extra,
  },
});

describe('the firm-wide feeds narrowed to a viewer', () => {
  it("drop copy keeps only the viewer's executions, with no other participant named", () => {
    const data = { executions: [execution('E1', ALICE, { submittingParticipant: BOB }), execution('E2', BOB)] };
    const viewed = DROP_COPY_VIEW(data, viewer) as { executions: { id: string; order: Record<string, unknown> }[] };
    expect(viewed.executions.map((e) => e.id)).toEqual(['E1']);
    expect(JSON.stringify(viewed)).not.toContain('bob');
    expect(data.executions).toHaveLength(2); // the shared data is untouched
  });

  it("a trade keeps the viewer's side whole and the other side without identity; a trade of others is left out", () => {
    const data = {
      tradeCaptureReports: [
        { id: 'T1', px: '40', qty: '1', aggressor: execution('E1', BOB), passive: execution('E2', ALICE) },
        { id: 'T2', px: '40', qty: '1', aggressor: execution('E3', BOB), passive: null },
      ],
    };
    const viewed = TRADES_VIEW(data, viewer) as { tradeCaptureReports: Record<string, Record<string, unknown>>[] };
    expect(viewed.tradeCaptureReports.map((t) => t.id)).toEqual(['T1']);
    const [trade] = viewed.tradeCaptureReports;
    expect(trade!.passive).toEqual(data.tradeCaptureReports[0]!.passive);
    expect(trade!.aggressor).toEqual({
      tradeId: 'T1',
      lastShares: '1',
      lastPx: '40',
      order: { symbol: 's', side: 'SIDE_BUY' },
    });
  });
});
