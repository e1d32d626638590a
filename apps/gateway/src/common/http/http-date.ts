/**
 * The `Date` header's value as Node's HTTP server writes it (`new Date().toUTCString()`), formatted
 * once per second: Node keeps its own the same way (an unreferenced timer clears it at the next
 * second), but not where a response head built outside Node's header code can read it.
 */
export class HttpDate {
  private current: string | undefined;
  private readonly clear = () => {
    this.current = undefined;
  };

  now(): string {
    if (this.current === undefined) {
      const date = new Date();
      this.current = date.toUTCString();
      setTimeout(this.clear, 1_000 - date.getMilliseconds()).unref();
    }
    return this.current;
  }
}
