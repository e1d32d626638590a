/** The sandbox's own idea of time: the real clock plus a deliberate skew tests can set. */
export class SandboxClock {
  constructor(public skewMs = 0) {}

  now(): number {
    return Date.now() + this.skewMs;
  }
}
