/**
 * A refusal a sandbox surface answers with. Each surface's filter renders it in that upstream's own
 * body shape (OAuth, gRPC status, retail `{message}`), so the checks do not care about the shape.
 */
export class SurfaceError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The OAuth `error` code on the auth surface; other surfaces derive their code from the status. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'SurfaceError';
  }
}
