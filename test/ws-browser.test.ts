import type { Browser } from 'playwright-core';

import { launchChromium } from './support/browser.js';
import { PARTICIPANT, type Stack, startStack } from './support/stack.js';

const slug = 'aec-nba-lal-gsw-2026-11-21';
const topic = `retail.marketData.${slug}`;

let stack: Stack;
let browser: Browser;
beforeAll(async () => {
  stack = await startStack();
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

interface BrowserFrame {
  type: string;
  seq?: number;
}

/** The few browser globals the page script uses; the test tsconfig has no DOM lib. */
interface BrowserSocket {
  onopen: () => void;
  onerror: () => void;
  onmessage: (event: { data: string }) => void;
  send(text: string): void;
}
interface PageGlobals {
  location: { origin: string };
  WebSocket: new (url: string) => BrowserSocket;
  subscribed?: boolean;
}

describe('/ws from a browser', () => {
  it('gets a ticket over fetch, opens /ws?ticket=, and receives the snapshot and an update', async () => {
    const page = await browser.newPage();
    // Any gateway page gives the script the gateway's origin, so fetch needs no CORS.
    await page.goto(`${stack.url}/docs/ws`);
    const opened = page.evaluate(
      async ({ key, topic }) => {
        const win = globalThis as unknown as PageGlobals;
        const response = await fetch('/ws/tickets', { method: 'POST', headers: { authorization: `Bearer ${key}` } });
        const { ticket } = (await response.json()) as { ticket: string };
        const ws = new win.WebSocket(
          `${win.location.origin.replace(/^http/, 'ws')}/ws?ticket=${encodeURIComponent(ticket)}`,
        );
        const frames: BrowserFrame[] = [];
        return new Promise<BrowserFrame[]>((resolve, reject) => {
          ws.onopen = () => ws.send(JSON.stringify({ type: 'subscribe', id: 'b1', topics: [topic] }));
          ws.onerror = () => reject(new Error('WebSocket error'));
          ws.onmessage = (event) => {
            const frame = JSON.parse(event.data) as BrowserFrame;
            frames.push({ type: frame.type, seq: frame.seq });
            if (frame.type === 'ack') win.subscribed = true;
            if (frames.filter((f) => f.seq !== undefined).length === 2) resolve(frames);
          };
        });
      },
      { key: stack.keys.all, topic },
    );
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).subscribed === true, undefined, {
      timeout: 10_000,
    });
    stack.sandbox.state.engine.insert({
      symbol: slug,
      side: 'SIDE_BUY',
      orderQty: 1,
      price: 21,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: PARTICIPANT,
    });
    const frames: BrowserFrame[] = await opened;
    const [first, , second] = frames;
    expect(frames.map((f) => f.type)).toEqual(['snapshot', 'ack', 'snapshot']);
    expect(second.seq).toBe((first.seq ?? 0) + 1);
    await page.close();
  });
});
