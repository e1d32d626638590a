import { type GcraCell, gcraTake } from './gcra.js';

/** Takes `cost` from cells whose state is kept between calls, like a store would. */
function cellsAt(cells: GcraCell[]) {
  let tats: (number | undefined)[] = cells.map(() => undefined);
  return (now: number, cost = 1) => {
    const outcome = gcraTake(now, tats, cells, cost);
    if (outcome.allowed) tats = outcome.tats;
    return outcome;
  };
}

const cell = (capacity: number, perMs: number, usable = capacity): GcraCell => ({
  capacity,
  emissionMs: 1 / perMs,
  usable,
});

describe('gcraTake', () => {
  it('allows exactly the capacity at one instant, then refuses', () => {
    const take = cellsAt([cell(396, 396 / 10_000)]);
    const results = Array.from({ length: 397 }, () => take(0).allowed);
    expect(results.filter(Boolean)).toHaveLength(396);
    expect(results[396]).toBe(false);
  });

  it('refills one token per emission interval and says how long to wait', () => {
    const take = cellsAt([cell(2, 1 / 100)]); // 1 token per 100 ms
    take(0);
    take(0);
    const refused = take(0);
    expect(refused).toMatchObject({ allowed: false, waitMs: 100, limiting: 0 });
    expect(take(99).allowed).toBe(false);
    expect(take(100).allowed).toBe(true);
    expect(take(100).allowed).toBe(false);
    expect(take(350)).toMatchObject({ allowed: true, remaining: [1] }); // 2.5 tokens back, capped at 2, one taken
  });

  it('takes all cells or none: an empty cell leaves the others untouched', () => {
    const tats = [undefined, 50];
    const cells = [cell(5, 1 / 10), cell(1, 1 / 50)];
    const refused = gcraTake(0, tats, cells, 1);
    expect(refused.allowed).toBe(false);
    expect(refused.limiting).toBe(1);
    expect(refused.tats).toEqual([0, 50]);
    expect(refused.remaining).toEqual([5, 0]);
  });

  it('charges a cost above one to every cell', () => {
    const outcome = gcraTake(0, [undefined, undefined], [cell(50, 1 / 20), cell(100, 1 / 10)], 20);
    expect(outcome).toMatchObject({ allowed: true, remaining: [30, 80] });
    expect(gcraTake(0, outcome.tats, [cell(50, 1 / 20), cell(100, 1 / 10)], 31).allowed).toBe(false);
  });

  it('stops a caller at its usable part: reads leave the reserve for cancels', () => {
    const read = cell(10, 1 / 1000, 8);
    const cancel = cell(10, 1 / 1000);
    let tats: (number | undefined)[] = [undefined];
    for (let i = 0; i < 8; i++) tats = gcraTake(0, tats, [read], 1).tats;
    expect(gcraTake(0, tats, [read], 1).allowed).toBe(false);
    expect(gcraTake(0, tats, [cancel], 1)).toMatchObject({ allowed: true, remaining: [1] });
  });

  it('reports when each cell is full again', () => {
    const outcome = gcraTake(1_000, [1_200], [cell(4, 1 / 100)], 1);
    expect(outcome.resetMs).toEqual([300]);
  });
});
