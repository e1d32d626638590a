import { type ServerResponse, validateHeaderValue } from 'node:http';

import { Logger } from '@nestjs/common';
import { type CounterSeries, REQUEST_ID_HEADER } from '@lib/core';

import { HttpDate } from '../common/http/http-date.js';

/** Bodies from this size on are kept encoded (a Buffer handed to the socket as is); smaller ones are joined to the head in one string. */
const BUFFERED_BODY_BYTES = 8_192;
/** The head up to the request id's value: Fastify sets the id first, on arrival. */
const HEAD_START = `HTTP/1.1 200 OK\r\n${REQUEST_ID_HEADER}: `;
/** What Node writes after the headers it was given on a kept-alive response: its Date, then the connection's. */
const NODE_TAIL =
  /^Date: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\r\n(Connection: keep-alive\r\n(?:Keep-Alive: timeout=\d+(?:, max=\d+)?\r\n)?\r\n)$/;

/** The fields of Node's ServerResponse (node:_http_outgoing, node:_http_server) the raw write reads and sets; @types/node has none of them. */
interface ResponseInternals {
  _header: string | null;
  _headerSent: boolean;
  shouldKeepAlive: boolean;
  maxRequestsOnConnectionReached?: boolean;
  _expect_continue?: boolean;
}

/** An entry's 200 as the hit path sends it, worked out once per entry (and its head's per-second part once per second). */
export interface EncodedHit {
  etag: string;
  cacheControl: string;
  contentType: string;
  contentLength: string;
  /** The body as the socket gets it: the string (joined to the head, one write) or, for a large one, its UTF-8 bytes. */
  body: string | Buffer;
  /** Node accepts these header values (checked once, as writeHead would on every response); else Node writes the head. */
  valid: boolean;
  /** The head after the request id, for `age` and `date` below: the cache headers, Node's Date and connection lines. */
  tail: string;
  age: number;
  date: string;
}

/**
 * Writes a cache hit's 200. Node's own way (writeHead with the header list, then end) validates every
 * header name and value and assembles the head on every response, and hands the socket the head and
 * an empty end chunk as a two-piece write; on a kept-alive connection whose response is the socket's
 * current one this writes the head it built itself (the request id, then a per-entry, per-second
 * tail: the same lines in the same order as Node's) and the body as one string in one socket write,
 * marks the head sent on the response and ends it, so Node's keep-alive, pipelining and 'finish'
 * handling run as for any response.
 *
 * The head is Node's to the byte: the first hit is written by Node, and its head is compared with the
 * one this would have built; only when they match (Date aside, whose format is checked) does this
 * write heads itself, with the connection lines Node wrote. On any difference (another Node version,
 * other server options) Node keeps writing every head, and a warning says why.
 */
export class HitResponses {
  private readonly logger = new Logger('CatalogFastPath');
  private readonly date = new HttpDate();
  /** Node's lines after the Date on a kept-alive 200 (Connection, Keep-Alive, the blank line); undefined until a head Node wrote was checked. */
  private connectionLines: string | undefined;
  private refused = false;

  /** `ownHeads`: counts the hits whose head this wrote (the others Node wrote). */
  constructor(private readonly ownHeads: CounterSeries) {}

  encode(etag: string, cacheControl: string, contentType: string, body: string): EncodedHit {
    const bytes = Buffer.byteLength(body);
    let valid = true;
    try {
      validateHeaderValue('etag', etag);
      validateHeaderValue('cache-control', cacheControl);
      validateHeaderValue('content-type', contentType);
    } catch {
      valid = false;
    }
    return {
      etag,
      cacheControl,
      contentType,
      contentLength: String(bytes),
      body: bytes >= BUFFERED_BODY_BYTES ? Buffer.from(body, 'utf8') : body,
      valid,
      tail: '',
      age: -1,
      date: '',
    };
  }

  send(res: ServerResponse, requestId: string, sent: EncodedHit, age: number): void {
    const internals = res as unknown as ResponseInternals;
    const keptAlive =
      internals.shouldKeepAlive && internals.maxRequestsOnConnectionReached !== true && !internals._expect_continue;
    const connectionLines = this.connectionLines;
    if (connectionLines === undefined || !keptAlive || !sent.valid) {
      this.sendThroughNode(res, requestId, sent, age);
      if (keptAlive && sent.valid && !this.refused && connectionLines === undefined)
        this.check(internals, requestId, sent, age);
      return;
    }
    const date = this.date.now();
    if (sent.age !== age || sent.date !== date) {
      sent.tail = `${linesOf(sent, age)}Date: ${date}\r\n${connectionLines}`;
      sent.age = age;
      sent.date = date;
    }
    this.ownHeads.inc();
    const head = HEAD_START + requestId + sent.tail;
    internals._header = head;
    const socket = res.socket as (ServerResponse['socket'] & { _httpMessage?: unknown }) | null;
    if (typeof sent.body === 'string' && socket !== null && socket._httpMessage === res && socket.writable) {
      // One write of head and body; end() then only finishes the response (Node sends nothing more).
      internals._headerSent = true;
      socket.write(head + sent.body);
      res.end();
    } else {
      // Node sends the head it finds set before the body: a large body goes as its bytes, a pipelined response waits its turn.
      internals._headerSent = false;
      res.end(sent.body);
    }
  }

  private sendThroughNode(res: ServerResponse, requestId: string, sent: EncodedHit, age: number): void {
    // Fastify's header order: the request id (set on arrival), the four cache headers, then the body's type and length.
    // A flat list: Node walks it by index (an object costs a for-in and an own-property check per header).
    res.writeHead(200, [
      REQUEST_ID_HEADER,
      requestId,
      'etag',
      sent.etag,
      'cache-control',
      sent.cacheControl,
      'age',
      String(age),
      'x-cache',
      'HIT',
      'content-type',
      sent.contentType,
      'content-length',
      sent.contentLength,
    ]);
    res.end(sent.body);
  }

  /** Compares the head Node just wrote with the one this would build; on a match, heads are built here from now on. */
  private check(internals: ResponseInternals, requestId: string, sent: EncodedHit, age: number): void {
    const written = internals._header;
    const own = HEAD_START + requestId + linesOf(sent, age);
    const tail =
      typeof written === 'string' && written.startsWith(own) ? NODE_TAIL.exec(written.slice(own.length)) : null;
    if (tail !== null) {
      this.connectionLines = tail[1];
      return;
    }
    this.refused = true;
    this.logger.warn(
      `Node's response head is not the one the hit path builds: Node writes every catalog hit's head (${JSON.stringify(written)})`,
    );
  }
}

/** The head's lines after the request id's value and before Node's Date: the four cache headers, the body's type and length. */
function linesOf(sent: EncodedHit, age: number): string {
  return (
    `\r\netag: ${sent.etag}\r\ncache-control: ${sent.cacheControl}\r\nage: ${age}\r\nx-cache: HIT\r\n` +
    `content-type: ${sent.contentType}\r\ncontent-length: ${sent.contentLength}\r\n`
  );
}
