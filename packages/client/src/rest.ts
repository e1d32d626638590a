import createClient, { type Client, type Middleware } from 'openapi-fetch';

import { GatewayProblem } from './problem.js';
import type { paths } from './schema.js';

export interface GatewayClientOptions {
  /** The gateway's base URL, e.g. https://gateway.internal. */
  baseUrl: string;
  /** The app's internal API key (`pmgw_…`). */
  key: string;
  /**
   * Queue up to this many seconds for upstream budget instead of getting a 429 (`Prefer: wait`);
   * per call: `headers: preferWait(5)`.
   */
  waitSeconds?: number;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

export type GatewayClient = Client<paths>;

/** `Prefer: wait=<seconds>` for one call: queue for upstream budget up to that long. */
export function preferWait(seconds: number): { prefer: string } {
  return { prefer: `wait=${Math.max(0, Math.floor(seconds))}` };
}

/**
 * A REST client whose paths, parameters and bodies are typed from the gateway's OpenAPI document.
 * Every non-2xx answer is thrown as a GatewayProblem, so `data` of a returned call is the success body.
 */
export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/$/, ''), fetch: options.fetch });
  const middleware: Middleware = {
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${options.key}`);
      if (options.waitSeconds !== undefined && !request.headers.has('prefer'))
        request.headers.set('prefer', preferWait(options.waitSeconds).prefer);
      return request;
    },
    async onResponse({ response }) {
      if (!response.ok) throw await GatewayProblem.from(response);
      return response;
    },
  };
  client.use(middleware);
  return client;
}

/**
 * A one-time `/ws` ticket for a browser (which cannot set an Authorization header on a WebSocket),
 * narrowed to `topics` (exact topics or families) when given: the browser may open only those.
 */
export async function wsTicket(client: GatewayClient, topics?: string[]): Promise<string> {
  const { data } = await client.POST('/ws/tickets', topics === undefined ? {} : { body: { topics } });
  const ticket = (data as { ticket?: unknown } | undefined)?.ticket;
  if (typeof ticket !== 'string') throw new Error('the gateway answered /ws/tickets without a ticket');
  return ticket;
}
