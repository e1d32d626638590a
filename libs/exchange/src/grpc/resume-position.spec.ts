import { ResumePosition } from './resume-position.js';

const at = (ms: number) => ({ transactTime: { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 } });

describe('ResumePosition', () => {
  it('steps back from a refused token to the time of the newest record delivered, then to live with a resync', () => {
    const position = new ResumePosition();
    position.reset({ token: Buffer.from('t1'), atMs: 5_000 });
    expect(position.next()).toEqual({ resumeToken: Buffer.from('t1') });
    position.delivered([at(7_250), at(6_000)]);
    expect(position.refused()).toEqual({ refused: 'token', fallback: 'time', fromMs: 7_250 });
    expect(position.next()).toEqual({ resumeTime: { seconds: 7, nanos: 250_000_000 } });
    expect(position.resyncPending).toBe(false);
    expect(position.refused()).toEqual({ refused: 'time', fallback: 'live', fromMs: undefined });
    expect(position.next()).toEqual({});
    expect(position.resyncPending).toBe(true);
    expect(position.refused()).toBeUndefined(); // live: nothing left to step back to
  });

  it('a checkpoint without a time steps back to live; a kept token ends the fallback', () => {
    const position = new ResumePosition();
    position.reset({ token: Buffer.from('old') });
    position.next();
    expect(position.refused()?.fallback).toBe('live');
    position.next();
    position.keep(Buffer.from('new'));
    expect(position.next()).toEqual({ resumeToken: Buffer.from('new') });
    expect(position.checkpoint(Buffer.from('new'))).toBe(Buffer.from('new').toString('base64'));
  });
});
