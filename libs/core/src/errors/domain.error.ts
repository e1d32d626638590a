import { ErrorCode } from './error-code.js';

/** One field-level problem, with the path into the request (RFC 9457 extension member `errors`). */
export interface FieldError {
  /** JSON-pointer-like dotted path, prefixed by where it was found: `body.orders.3.price`, `query.depth`. */
  path: string;
  message: string;
}

export interface DomainErrorOptions {
  detail?: string;
  errors?: FieldError[];
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  /** Extension members added to the problem body (e.g. `upstream`, `clordId`, `bucket`). */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

/** Base class of every error the gateway answers on purpose. Never carries secrets. */
export class DomainError extends Error {
  readonly errors?: FieldError[];
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    options: Omit<DomainErrorOptions, 'detail'> = {},
  ) {
    super(detail, { cause: options.cause });
    this.name = new.target.name;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }
}

export class ValidationError extends DomainError {
  constructor(errors: FieldError[], detail = 'The request does not match the schema.') {
    super(ErrorCode.VALIDATION_FAILED, detail, { errors });
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(detail = 'A valid API key is required: send Authorization: Bearer <api key>.') {
    super(ErrorCode.UNAUTHENTICATED, detail, { headers: { 'WWW-Authenticate': 'Bearer realm="gateway"' } });
  }
}

export class ForbiddenError extends DomainError {
  constructor(detail: string, extensions: Record<string, unknown> = {}) {
    super(ErrorCode.FORBIDDEN, detail, { extensions });
  }
}

export class NotFoundError extends DomainError {
  constructor(detail = 'No such resource.') {
    super(ErrorCode.NOT_FOUND, detail);
  }
}

export class RateLimitedError extends DomainError {
  constructor(
    detail: string,
    retryAfterSeconds: number,
    extensions: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(ErrorCode.RATE_LIMITED, detail, {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))), ...headers },
      extensions,
    });
  }
}
