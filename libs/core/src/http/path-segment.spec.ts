import { ValidationError } from '../errors/domain.error.js';
import { PathSegmentSchema, pathSegment, wireText } from './path-segment.js';

describe(pathSegment.name, () => {
  it('percent-encodes everything that could change the path', () => {
    expect(pathSegment('a/b?c#d%e f')).toBe('a%2Fb%3Fc%23d%25e%20f');
    expect(pathSegment('aec-nfl-buf-kc.2026')).toBe('aec-nfl-buf-kc.2026');
  });

  it.each(['', '.', '..'])('refuses the dot or empty segment %j, naming the field', (value) => {
    expect(() => pathSegment(value, 'params.id')).toThrow(ValidationError);
  });
});

describe('PathSegmentSchema', () => {
  it.each(['', '.', '..', 'x'.repeat(201)])('refuses %j', (value) => {
    expect(PathSegmentSchema.safeParse(value).success).toBe(false);
  });

  it('takes a segment that merely contains dots', () => {
    expect(PathSegmentSchema.parse('...a')).toBe('...a');
  });
});

describe('wireText', () => {
  const schema = wireText(10);

  it.each(['a\u0000b', 'a\nb', 'a\u007fb', 'a\ud800b', 'a\udc00', '\udfff\ud83d', 'x'.repeat(11)])(
    'refuses %j',
    (value) => {
      expect(schema.safeParse(value).success).toBe(false);
    },
  );

  it.each(['', 'O-1', 'a\u202eb', '💥', 'ключ'])('takes %j', (value) => {
    expect(schema.parse(value)).toBe(value);
  });
});
