import { RequestIds } from './request-ids.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('RequestIds', () => {
  it('makes distinct UUID-shaped ids across several random prefixes', () => {
    const ids = new RequestIds();
    const made = Array.from({ length: 3 * 4_096 + 10 }, () => ids.create());
    expect(made.filter((id) => !UUID_V4.test(id))).toEqual([]);
    expect(new Set(made).size).toBe(made.length);
    // A fresh random prefix every 4,096 ids: four prefixes here, none repeated.
    expect(new Set(made.map((id) => id.slice(0, 33))).size).toBe(4);
  });

  it('takes a new prefix per generator, so two processes do not count through the same ids', () => {
    const [a, b] = [new RequestIds(), new RequestIds()];
    expect(a.create().slice(0, 33)).not.toBe(b.create().slice(0, 33));
  });
});
