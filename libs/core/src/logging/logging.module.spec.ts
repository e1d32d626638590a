import { pino } from 'pino';

import { pinoOptions } from './logging.module.js';

/** The lines a pino logger with the gateway's options writes. */
function capture(): { lines: string[]; logger: pino.Logger } {
  const lines: string[] = [];
  const logger = pino(pinoOptions('info'), { write: (line: string) => void lines.push(line) });
  return { lines, logger };
}

describe('the log formatter', () => {
  const key = `pmgw_${'k3Y'.repeat(12)}`;
  const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJnYXRld2F5In0.c2lnbmF0dXJlLWJ5dGVzLWhlcmU';

  it('scrubs key material from strings at any depth of the fields, arrays included', () => {
    const { lines, logger } = capture();
    logger.info({ tradingState: { reason: `pasted ${key}`, notes: [{ text: jwt }] }, top: key }, 'state changed');
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      tradingState: { reason: 'pasted [redacted]', notes: [{ text: '[redacted]' }] },
      top: '[redacted]',
    });
    expect(lines[0]).not.toContain(key);
    expect(lines[0]).not.toContain(jwt);
  });

  it("replaces a secret-named field's value at any depth, and scrubs an error's own fields", () => {
    const { lines, logger } = capture();
    const err = Object.assign(new Error(`failed with ${key}`), { detail: `detail ${key}`, extensions: { jwt } });
    logger.error(
      { a: { b: { password: 'hunter2-secret' } }, query: Object.assign(Object.create(null), { token: 'abc' }), err },
      'x',
    );
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ a: { b: { password: '[redacted]' } }, query: { token: '[redacted]' } });
    expect(lines[0]).not.toContain('hunter2-secret');
    expect(lines[0]).not.toContain(key);
    expect(lines[0]).not.toContain(jwt);
  });

  it('leaves numbers, booleans and ordinary text as they are, and cuts a field nested without end', () => {
    const { lines, logger } = capture();
    let deep: Record<string, unknown> = { leaf: 'x' };
    for (let i = 0; i < 20; i++) deep = { deep };
    logger.info({ count: 3, ok: true, scope: 'team:trading', deep }, 'plain');
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ count: 3, ok: true, scope: 'team:trading' });
    expect(lines[0]).toContain('[too deep]');
  });
});
