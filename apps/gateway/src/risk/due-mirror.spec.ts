import { DueMirror } from './due-mirror.js';

// The Redis path and the firing are judged through the wire (test/risk-brakes-redis-down.test.ts); here,
// the conservative rule: while Redis is out a mirrored deadline fires at max(itself, outage start + period).
describe(DueMirror.name, () => {
  let now: number;
  let mirror: DueMirror;
  beforeEach(() => {
    now = 1_000;
    mirror = new DueMirror(() => now);
  });

  it('fires nothing while Redis answers, however late the deadline', () => {
    mirror.scheduled('bot', 2_000, '5000');
    now = 10_000;
    expect(mirror.answered()).toBe(false);
    expect(mirror.firedMeanwhile()).toEqual([]);
  });

  it('waits one period past the outage start, for a re-arm made elsewhere it never saw', () => {
    mirror.scheduled('bot', 2_000, '5000'); // due at 3,000
    now = 2_500;
    expect(mirror.unanswered()).toEqual({ lapsed: [], began: true });
    now = 4_499;
    expect(mirror.unanswered()).toEqual({ lapsed: [], began: false });
    now = 4_500;
    expect(mirror.unanswered().lapsed).toEqual(['bot']);
    expect(mirror.unanswered().lapsed).toEqual([]); // once
    expect(mirror.firedMeanwhile()).toEqual([['bot', '5000']]);
  });

  it('converts a read of the set with the Redis clock of the read', () => {
    now = 10_000;
    mirror.replace({ redisNow: 50_000, entries: [{ clientId: 'bot', score: '60000', periodMs: 1_000 }] }, now);
    now = 11_000;
    mirror.unanswered(); // outage from 11,000: 12,000 by the period, 20,000 by the deadline
    now = 19_999;
    expect(mirror.unanswered().lapsed).toEqual([]);
    now = 20_000;
    expect(mirror.unanswered().lapsed).toEqual(['bot']);
  });

  it('keeps what it scheduled after a read was asked for, when that read is handled later', () => {
    const askedAt = now;
    now = 1_001;
    mirror.scheduled('bot', 2_000, '5000'); // handed to Redis after the read ran there: not in its listing
    mirror.replace({ redisNow: 4_000, entries: [] }, now, askedAt);
    mirror.unanswered(); // outage from 1,001: due at 3,001
    now = 3_001;
    expect(mirror.unanswered().lapsed).toEqual(['bot']);
  });

  it('pushes the deadline out on a re-arm that may have landed, and keeps it on a failed disarm', () => {
    mirror.scheduled('bot', 2_000, '5000'); // due at 3,000
    now = 2_000;
    mirror.scheduled('bot', 2_000, undefined); // unanswered: 4,000
    mirror.unanswered();
    now = 3_999;
    expect(mirror.unanswered().lapsed).toEqual([]);
    now = 4_000;
    expect(mirror.unanswered().lapsed).toEqual(['bot']);
  });

  it('drops what Redis no longer holds, and retries a failed firing', () => {
    mirror.scheduled('gone', 1_000, '2000');
    mirror.scheduled('bot', 1_000, '2000');
    mirror.forget('gone');
    mirror.unanswered();
    now = 3_000;
    expect(mirror.unanswered().lapsed).toEqual(['bot']);
    mirror.retry('bot', 1_000);
    now = 3_999;
    expect(mirror.unanswered().lapsed).toEqual([]);
    now = 4_000;
    expect(mirror.unanswered().lapsed).toEqual(['bot']);
    expect(mirror.answered()).toBe(true);
    expect(mirror.firedMeanwhile()).toEqual([]);
  });
});
