import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { type DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream, LoggerOptions } from 'pino';

import { REDACT_PATHS, REDACTED, scrubText, serializeRequest } from './redaction.js';

export const REQUEST_ID_HEADER = 'x-request-id';
const REQUEST_ID_SHAPE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes the caller's request id when it is well formed, else makes one; the same id is echoed and sent upstream. */
export function requestIdOf(req: IncomingMessage, res?: ServerResponse): string {
  const given = req.headers[REQUEST_ID_HEADER];
  const id = typeof given === 'string' && REQUEST_ID_SHAPE.test(given) ? given : randomUUID();
  res?.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

export function pinoOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    formatters: {
      log: (object) => {
        // Error messages are free text: scrub anything that looks like key material before it is written.
        const err = object.err as { message?: unknown; stack?: unknown } | undefined;
        if (err && typeof err === 'object') {
          return { ...object, err: { ...err, message: scrubText(String(err.message ?? '')), stack: scrubText(String(err.stack ?? '')) } };
        }
        return object;
      },
    },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? scrubText(a) : a)) as Parameters<typeof method>);
      },
    },
  };
}

export interface LoggingOptions {
  level: string;
  /** Where log lines go; tests pass a stream to capture them. */
  destination?: DestinationStream;
}

@Module({})
export class LoggingModule {
  static forRoot(options: LoggingOptions): DynamicModule {
    return {
      imports: [
        LoggerModule.forRoot({
          pinoHttp: [
            {
              ...pinoOptions(options.level),
              genReqId: (req, res) => requestIdOf(req, res),
              serializers: { req: serializeRequest, res: (res: ServerResponse) => ({ statusCode: res.statusCode }) },
              customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
              autoLogging: { ignore: (req) => req.url === '/metrics' || (req.url ?? '').startsWith('/health') },
            },
            options.destination ?? process.stdout,
          ],
        }),
      ],
      module: LoggingModule,
    };
  }
}
