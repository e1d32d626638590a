/**
 * Decides whether a request target belongs to one of a fixed set of origins. Credentials are attached
 * on every upstream request, so the common case (a target that starts with a known origin) is a string
 * compare; only unusual spellings (upper-case host, explicit default port) pay for a URL parse.
 */
export class OriginMatcher {
  private readonly origins: readonly string[];
  private readonly originSet: ReadonlySet<string>;
  private readonly exact: ReadonlySet<string>;

  /** `origins` are WHATWG URL origins (`https://host:port`); `exact` are bare targets such as a gRPC `host:port`. */
  constructor(origins: readonly string[], exact: readonly string[] = []) {
    this.origins = [...new Set(origins)];
    this.originSet = new Set(this.origins);
    this.exact = new Set(exact);
  }

  /** Length of the origin prefix of `target`, or -1 when the target is not one of ours. */
  match(target: string): number {
    for (const origin of this.origins) {
      if (target.startsWith(origin) && endsAuthority(target, origin.length)) return origin.length;
    }
    if (this.exact.has(target)) return target.length;
    const parsed = URL.canParse(target) ? new URL(target) : undefined;
    if (parsed === undefined || parsed.username !== '' || parsed.password !== '') return -1;
    if (!this.originSet.has(parsed.origin)) return -1;
    return authorityEnd(target);
  }

  matches(target: string): boolean {
    return this.match(target) >= 0;
  }

  /** Describes a refused target without its path or query, which may carry data that is not ours to log. */
  static describe(target: string): string {
    if (!URL.canParse(target)) return 'an unparseable target';
    const url = new URL(target);
    return url.origin === 'null' ? `a ${url.protocol} target` : url.origin;
  }
}

/** True when the character after the origin starts the path, query or fragment, or there is none. */
function endsAuthority(target: string, at: number): boolean {
  if (target.length === at) return true;
  const c = target.charCodeAt(at);
  return c === 47 /* / */ || c === 63 /* ? */ || c === 35; /* # */
}

/** Index where the path of an absolute URL starts (its length when it has none). */
function authorityEnd(target: string): number {
  const start = target.indexOf('//') + 2;
  for (let i = start; i < target.length; i++) {
    const c = target.charCodeAt(i);
    // A backslash ends the host too: WHATWG URLs read it as `/` in http(s) and ws(s) targets.
    if (c === 47 || c === 63 || c === 35 || c === 92) return i;
  }
  return target.length;
}
