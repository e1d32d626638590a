// How `npm start` shows the two processes' JSON log lines on a screen: one short line each, and none
// for the framework's start-up chatter (module and route registration), which is debug-grade for a
// person. The full JSON lines go to .dev/*.log unchanged; production logs are never touched by this.

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const STARTUP_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

interface LogLine {
  level?: number;
  time?: number;
  context?: string;
  msg?: string;
  log?: string;
  method?: string;
  url?: string;
  status?: number;
  ms?: number;
}

function clock(time: number | undefined): string {
  return new Date(time ?? Date.now()).toISOString().slice(11, 19);
}

/** The short screen form of one log line, or undefined for a line a person need not see. */
export function shortLine(name: string, raw: string): string | undefined {
  let line: LogLine;
  try {
    line = JSON.parse(raw) as LogLine;
  } catch {
    return raw.trim() === '' ? undefined : `${name}: ${raw}`;
  }
  const level = line.level ?? 30;
  if (level < 40 && line.context !== undefined && STARTUP_CONTEXTS.has(line.context)) return undefined;
  const tag = (LEVELS[level] ?? String(level)).padEnd(5);
  if (line.log === 'access')
    return `${clock(line.time)} ${tag} ${line.method} ${line.url} → ${line.status} (${line.ms} ms)`;
  return `${clock(line.time)} ${tag} ${name}${line.context ? ` ${line.context}` : ''}: ${line.msg ?? raw}`;
}
