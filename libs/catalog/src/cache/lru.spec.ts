import { Lru } from './lru.js';

describe(Lru.name, () => {
  it('evicts the least recently used entry past its entry bound', () => {
    const sut = new Lru<string>(2);
    sut.set('a', 'A', 1, 100);
    sut.set('b', 'B', 1, 100);
    expect(sut.get('a', 0)).toBe('A'); // a is now the most recent
    sut.set('c', 'C', 1, 100);
    expect(sut.get('b', 0)).toBeUndefined();
    expect(sut.get('a', 0)).toBe('A');
    expect(sut.get('c', 0)).toBe('C');
    expect(sut.size).toBe(2);
  });

  it('gives every read entry a second chance before evicting one', () => {
    const sut = new Lru<string>(3);
    for (const key of ['a', 'b', 'c']) sut.set(key, key, 1, 100);
    sut.get('a', 0);
    sut.get('b', 0);
    sut.get('c', 0);
    sut.set('d', 'd', 1, 100); // every older entry was read: each is moved back once, then the oldest goes
    expect(['a', 'b', 'c', 'd'].filter((key) => sut.get(key, 0) !== undefined)).toEqual(['b', 'c', 'd']);
    sut.set('e', 'e', 1, 100); // b, c and d were just read again; a new entry is never its own victim
    expect(sut.size).toBe(3);
    expect(sut.get('e', 0)).toBe('e');
  });

  it('does not make a new entry the next victim when every older entry was read', () => {
    const sut = new Lru<string>(4);
    for (const key of ['a', 'b', 'c', 'd']) sut.set(key, key, 1, 100);
    for (const key of ['a', 'b', 'c', 'd']) sut.get(key, 0);
    sut.set('x', 'x', 1, 100); // a goes; b, c and d are moved back unmarked, still ahead of x
    sut.set('y', 'y', 1, 100); // the least recently used unread entry is b, not the newer x
    expect(['b', 'c', 'd', 'x', 'y'].filter((key) => sut.get(key, 0) !== undefined)).toEqual(['c', 'd', 'x', 'y']);
  });

  it('keeps the total size under its byte bound and refuses a value larger than the bound', () => {
    const sut = new Lru<string>(10, 100);
    sut.set('a', 'A', 60, 100);
    sut.set('b', 'B', 60, 100);
    expect(sut.get('a', 0)).toBeUndefined();
    expect(sut.totalBytes).toBe(60);
    sut.set('huge', 'H', 101, 100);
    expect(sut.get('huge', 0)).toBeUndefined();
    expect(sut.get('b', 0)).toBe('B');
  });

  it('forgets an entry at its deadline', () => {
    const sut = new Lru<string>(10);
    sut.set('a', 'A', 1, 50);
    expect(sut.get('a', 49)).toBe('A');
    expect(sut.get('a', 50)).toBeUndefined();
    expect(sut.size).toBe(0);
  });

  it('replaces a key without counting it twice', () => {
    const sut = new Lru<string>(10, 100);
    sut.set('a', 'A', 40, 100);
    sut.set('a', 'A2', 50, 100);
    expect(sut.totalBytes).toBe(50);
    expect(sut.get('a', 0)).toBe('A2');
  });

  it('purges the keys a filter selects', () => {
    const sut = new Lru<string>(10);
    for (const key of ['events|/v1/events', 'events|/v1/events?limit=1', 'sports|/v1/sports'])
      sut.set(key, key, 1, 100);
    expect(sut.purge((key) => key.startsWith('events|'))).toBe(2);
    expect(sut.get('sports|/v1/sports', 0)).toBeDefined();
  });

  it('stores nothing when its entry bound is zero', () => {
    const sut = new Lru<string>(0);
    sut.set('a', 'A', 1, 100);
    expect(sut.get('a', 0)).toBeUndefined();
  });
});
