/** An RFC 9457 problem answer of the gateway, thrown by the REST client for every non-2xx response. */
export class GatewayProblem extends Error {
  override readonly name = 'GatewayProblem';

  constructor(
    readonly status: number,
    /** The gateway's stable code, e.g. `RATE_LIMITED`, `FORBIDDEN`, `VALIDATION_FAILED`. */
    readonly code: string,
    /** The request id the gateway logged this under (also the `x-request-id` response header). */
    readonly requestId: string | undefined,
    /** Seconds to wait before trying again, from `Retry-After`, when the gateway gave one. */
    readonly retryAfterSeconds: number | undefined,
    /** The whole problem document (`errors`, `upstream`, `missingScope`, … where present). */
    readonly problem: Record<string, unknown>,
  ) {
    super(`${status} ${code}: ${String(problem.detail ?? problem.title ?? '')}`);
  }

  static async from(response: Response): Promise<GatewayProblem> {
    const text = await response.text();
    let problem: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(text);
      problem = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : { detail: text };
    } catch {
      problem = { detail: text.slice(0, 200) };
    }
    const retryAfter = Number(response.headers.get('retry-after'));
    return new GatewayProblem(
      response.status,
      typeof problem.code === 'string' ? problem.code : `HTTP_${response.status}`,
      typeof problem.requestId === 'string' ? problem.requestId : (response.headers.get('x-request-id') ?? undefined),
      Number.isFinite(retryAfter) && response.headers.has('retry-after') ? retryAfter : undefined,
      problem,
    );
  }
}
