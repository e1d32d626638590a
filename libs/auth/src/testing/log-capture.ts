import { Logger, type LoggerService } from '@nestjs/common';

export interface LogLine {
  level: string;
  message: string;
}

/** Collects what Nest loggers write (and keeps test output quiet), so tests can check log content. */
export class LogCapture implements LoggerService {
  readonly lines: LogLine[] = [];

  static install(): LogCapture {
    const capture = new LogCapture();
    Logger.overrideLogger(capture);
    return capture;
  }

  log(message: unknown): void {
    this.push('log', message);
  }
  error(message: unknown): void {
    this.push('error', message);
  }
  warn(message: unknown): void {
    this.push('warn', message);
  }
  debug(message: unknown): void {
    this.push('debug', message);
  }
  verbose(message: unknown): void {
    this.push('verbose', message);
  }

  text(): string {
    return this.lines.map((l) => `${l.level} ${l.message}`).join('\n');
  }

  private push(level: string, message: unknown): void {
    this.lines.push({ level, message: String(message) });
  }
}
