import type { IncomingMessage } from 'node:http';

import { type DynamicModule, Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { type DestinationStream, type LoggerOptions, pino } from 'pino';

import { REDACT_PATHS, REDACTED, holdsSecret, isSecretName, scrubText } from './redaction.js';
import { RequestIds } from './request-ids.js';

export const REQUEST_ID_HEADER = 'x-request-id';
const REQUEST_ID_SHAPE = /^[A-Za-z0-9._:-]{1,128}$/;
/** The process's request ids (one counter for the Fastify routes and the catalog's hit path). */
const requestIds = new RequestIds();

/** Takes the caller's request id when it is well formed, else makes one; the same id is echoed and sent upstream. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  // The id is logged and echoed: one shaped like a key or token is replaced, not written down.
  return typeof given === 'string' && REQUEST_ID_SHAPE.test(given) && !holdsSecret(given) ? given : requestIds.create();
}

export function pinoOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    formatters: {
      // Every string is free text a caller may have shaped (a URL, a header, an upstream message, an admin's
      // reason), at any depth of the fields: scrub anything that looks like key material before it is
      // written; error messages and stacks too.
      log: (object) => {
        const out: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(object)) out[name] = field(name, value, 0);
        const err = object.err as { message?: unknown; stack?: unknown } | undefined;
        if (err && typeof err === 'object')
          out.err = {
            // An error's own fields (a problem's detail and extensions, a driver's detail) are free text too.
            ...(scrubbed({ ...err }, 1) as object),
            message: scrubText(String(err.message ?? '')),
            stack: scrubText(String(err.stack ?? '')),
          };
        return out;
      },
    },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? scrubText(a) : a)) as Parameters<typeof method>);
      },
    },
  };
}

/** Fields nested deeper than this are not written (a log field is a small record, never a whole body). */
const MAX_FIELD_DEPTH = 8;

/**
 * A copy of `value` with every string in it scrubbed (scrubText) and every secret-named field's value
 * replaced, at any depth; plain and null-prototype objects and arrays are walked, anything else kept.
 */
function scrubbed(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object') return value;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return value;
  if (depth >= MAX_FIELD_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => scrubbed(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) out[name] = field(name, item, depth + 1);
  return out;
}

const field = (name: string, value: unknown, depth: number): unknown =>
  isSecretName(name) ? REDACTED : scrubbed(value, depth);

export interface LoggingOptions {
  level: string;
  /** Where log lines go; tests pass a stream to capture them. */
  destination?: DestinationStream;
}

/**
 * The stream every log line goes to (stdout, asynchronously, unless a test passes its own). The gateway's access log
 * writes its lines there itself; they have the shape of pino's lines (see the gateway's AccessLog).
 */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');

let stdoutDestination: DestinationStream | undefined;

/** Bytes of log lines gathered before a write (about twenty access lines), and the longest a line waits. */
const LOG_BATCH_BYTES = 4_096;
const LOG_FLUSH_MS = 100;

/**
 * Standard output, written in batches (pino's SonicBoom on fd 1, one per process). Node writes
 * `process.stdout` synchronously when it is a file or a pipe, one write(2) per line; at 1,000 orders/s
 * that syscall was 10–17 % of an order-entry gateway's busy time in `npm run bench orders` (CPU profile),
 * and written asynchronously one by one it still cost as much (the write moves to a thread on the same
 * core). Lines leave when 4 KiB have gathered or 100 ms have passed, in one write; at exit pino flushes
 * what is left. What a SIGKILL costs: at most the last 100 ms of log lines (orders are on the journal).
 */
function stdout(): DestinationStream {
  stdoutDestination ??= pino.destination({
    dest: 1,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
  return stdoutDestination;
}

@Global()
@Module({})
export class LoggingModule {
  static forRoot(options: LoggingOptions): DynamicModule {
    const destination = options.destination ?? stdout();
    const logger = pino(pinoOptions(options.level), destination);
    return {
      exports: [LOG_DESTINATION],
      // nestjs-pino is Nest's LoggerService here, nothing more. Its per-request pino-http middleware
      // (a child logger and an AsyncLocalStorage scope on every request) is mounted on no route: removing
      // it saved 3–4 µs of CPU per cache hit in our measurements, about what the hit's own work
      // costs. Request lines come from the gateway's AccessLog, called by its one onResponse hook (one line per
      // request, with its requestId), and an unhandled error's line names the requestId itself.
      imports: [LoggerModule.forRoot({ pinoHttp: { logger, autoLogging: false }, forRoutes: [] })],
      module: LoggingModule,
      providers: [{ provide: LOG_DESTINATION, useValue: destination }],
    };
  }
}
