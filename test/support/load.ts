import { type GatewayProcess, spawnGateway } from './gateway-process.js';
import type { GatewayConfigInput } from '../../apps/gateway/src/config/gateway-config.schema.js';

/** One answer of a load run: status (0 when the request failed without one), problem code and limiter verdict. */
export interface Answer {
  status: number;
  code?: string;
  limitedBy?: string;
  bucket?: string;
  /** The team whose share of `bucket` refused it, when a share did. */
  team?: string;
  /** Local time the answer arrived. */
  at: number;
  /** Why there was no answer (status 0): the fetch error and its cause, so a failed assertion says what broke. */
  failure?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Offers `perSecond` requests spread evenly over `durationMs`, open loop: each is sent on its
 * schedule whether or not earlier ones were answered, so a slow answer never lowers the offered load.
 */
export async function offer(
  perSecond: number,
  durationMs: number,
  send: (i: number) => Promise<Response>,
): Promise<Answer[]> {
  const interval = 1_000 / perSecond;
  const start = performance.now();
  const pending: Promise<Answer>[] = [];
  for (let i = 0; i * interval < durationMs; i++) {
    const wait = start + i * interval - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(answerOf(send(i)));
  }
  return Promise.all(pending);
}

export async function answerOf(response: Promise<Response>): Promise<Answer> {
  try {
    const res = await response;
    const text = await res.text();
    const answer: Answer = { status: res.status, at: Date.now() };
    if (res.status >= 400) {
      Object.assign(answer, parseProblem(text));
    }
    return answer;
  } catch (error) {
    // Read by shape: fetch's errors come from Node's realm, not jest's, so `instanceof Error` is false for them.
    const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
    return {
      status: 0,
      at: Date.now(),
      failure: `${String(error)}${cause ? ` (${cause.code ?? ''} ${cause.message ?? String(cause)})` : ''}`,
    };
  }
}

/** The problem fields a load test reads (code, limitedBy, bucket, team), those that are strings. */
function parseProblem(text: string): Pick<Answer, 'code' | 'limitedBy' | 'bucket' | 'team'> {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    return Object.fromEntries(
      ['code', 'limitedBy', 'bucket', 'team'].filter((k) => typeof body[k] === 'string').map((k) => [k, body[k]]),
    );
  } catch {
    return {};
  }
}

/** Most entries in any sliding window of `windowMs`, counted as the sandbox does: (t − window, t]. */
export function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while (sorted[first] <= sorted[last] - windowMs) first++;
    best = Math.max(best, last - first + 1);
  }
  return best;
}

/** Statuses (with the problem's code for a refusal) and how often each came, e.g. `{ 200: 410, '429 RATE_LIMITED': 900 }`. */
export function tally(answers: readonly Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, code } of answers) {
    const key = status >= 400 && code ? `${status} ${code}` : String(status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** `count` real gateway processes on one config (one shared Redis key prefix); started one after another to spare the CPU. */
export async function spawnFleet(input: GatewayConfigInput, count: number): Promise<GatewayProcess[]> {
  const fleet: GatewayProcess[] = [];
  try {
    for (let i = 0; i < count; i++) fleet.push(await spawnGateway(input));
  } catch (error) {
    await Promise.all(fleet.map((g) => g.stop()));
    throw error;
  }
  return fleet;
}

/** fetch against a gateway process with an API key. */
export function caller(url: string, key: string) {
  return (path: string, init: RequestInit = {}) =>
    fetch(url + path, {
      ...init,
      headers: {
        authorization: `Bearer ${key}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
    });
}

const usd = (value: string) => ({ value, currency: 'USD' });

/** Markets with no seller in a fresh sandbox: cheap resting buys on them never cross, so the engine stays idle. */
export const QUIET_MARKETS = ['aec-nfl-gb-chi-2026-11-22', 'aec-nfl-bal-pit-2026-11-22', 'aec-nfl-det-min-2026-11-22'];

/** The i-th resting limit buy: 1 contract at 1–5 cents on one of the quiet markets. */
export function restingBuy(i: number): RequestInit {
  const body = {
    marketSlug: QUIET_MARKETS[i % QUIET_MARKETS.length],
    intent: 'ORDER_INTENT_BUY_LONG',
    price: usd(`0.0${1 + (i % 5)}`),
    quantity: 1,
  };
  return { method: 'POST', body: JSON.stringify(body) };
}
