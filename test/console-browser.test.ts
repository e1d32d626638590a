// The ops console in Chromium: it loads with a one-time ticket, shows the shared budget moving while
// this test spends it, shows open orders against their limit, halts a team through its kill switch
// (confirmation, reason) and looks up an order's timeline, refuses a client without admin, and leaves
// a screenshot for the README.
import type { Browser } from 'playwright-core';

import { launchChromium } from './support/browser.js';

import { limit, post } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, api, json, startStack } from './support/stack.js';

export const CONSOLE_SCREENSHOT = 'docs/console.png';

let stack: Stack;
let browser: Browser;
beforeAll(async () => {
  stack = await startStack({
    clients: [
      { id: 'viewer', scopes: ['read:marketdata'] },
      { id: 'bot', team: 'trading', scopes: ['write:orders', 'read:orders'], participants: [PARTICIPANT] },
    ],
    gateway: (config) => ({ ...config, risk: { limits: [{ scope: 'team', id: 'trading', maxOpenOrders: 10 }] } }),
  });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function ticketOf(clientId: string): Promise<string> {
  const res = await api(stack, clientId)('/ws/tickets', { method: 'POST' });
  expect(res.status).toBe(201);
  return (await json(res)).ticket;
}

/** Percent in use per bucket row, as the page shows it. */
function usage(page: import('playwright-core').Page): Promise<Record<string, number>> {
  return page.$$eval('#budget tbody tr', (rows) =>
    Object.fromEntries(
      rows.map((row) => [
        (row as unknown as { dataset: { bucket: string } }).dataset.bucket,
        Number.parseFloat(row.querySelector('td.use')?.textContent ?? 'NaN'),
      ]),
    ),
  );
}

describe('/console', () => {
  it('shows the upstream budget moving, live over /ws, after loading with a ticket', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const consoleErrors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    await page.goto(`${stack.url}/console#ticket=${encodeURIComponent(await ticketOf('all'))}`);
    await page.waitForSelector('#budget tbody tr', { timeout: 10_000 });
    expect(await page.textContent('#status')).toBe('connected');
    const before = await usage(page);
    expect(Object.keys(before).length).toBeGreaterThan(3);

    // Spend: 20 retail order reads (a small published budget), as another app of the firm would.
    const call = api(stack);
    for (let i = 0; i < 20; i++) await call('/retail/v1/orders/open', { headers: { prefer: 'wait=5' } });
    await page.waitForFunction(
      (previous) => {
        const rows = [
          ...(
            globalThis as unknown as {
              document: {
                querySelectorAll(
                  s: string,
                ): Iterable<{ dataset: { bucket: string }; querySelector(s: string): { textContent: string } | null }>;
              };
            }
          ).document.querySelectorAll('#budget tbody tr'),
        ];
        return rows.some(
          (row) =>
            Number.parseFloat(row.querySelector('td.use')?.textContent ?? '0') >=
            (previous[row.dataset.bucket] ?? 0) + 10,
        );
      },
      before,
      { timeout: 10_000 },
    );
    const after = await usage(page);
    const moved = Object.keys(after).filter((bucket) => after[bucket] >= (before[bucket] ?? 0) + 10);
    expect(moved.some((bucket) => bucket.startsWith('retail.'))).toBe(true);
    expect(Number(await page.textContent('#tokenRefreshes'))).toBeGreaterThanOrEqual(0);
    expect(await page.textContent('#readiness')).toMatch(/up/);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it("shows a team's open orders against its limit, halts the team from the kill switch after a confirmation, and shows an order's timeline", async () => {
    for (let i = 0; i < 3; i++)
      expect(
        (
          await post(
            stack,
            '/exchange/v1/trading/orders',
            limit('SIDE_BUY', 1, 10 + i, { clordId: `console-${i}` }),
            'bot',
          )
        ).status,
      ).toBe(200);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const consoleErrors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    // Logged in with the admin key: the page fetches its own tickets, and uses the key for the actions.
    await page.goto(`${stack.url}/console`);
    await page.fill('#key', stack.keys.all!);
    await page.click('#login button[type=submit]');
    const teamCount = '#openOrders tbody tr[data-scope="team:trading"] td.open';
    await page.waitForFunction(
      (selector) =>
        (
          globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
        ).document.querySelector(selector)?.textContent === '3 / 10',
      teamCount,
      { timeout: 10_000 },
    );
    expect(await page.isVisible('#noStates')).toBe(true);
    expect(await page.isHidden('#actionKeyRow')).toBe(true);

    // Apply asks first; cancelling the question sends nothing.
    await page.fill('#killScope', 'team:trading');
    await page.selectOption('#killState', 'halted');
    await page.fill('#killReason', 'runaway bot, OPS-7');
    await page.click('#killApply');
    expect(await page.textContent('#killQuestion')).toContain('Set team:trading to halted (runaway bot, OPS-7)?');
    await page.click('#killNo');
    expect((await json(await api(stack)('/admin/risk'))).states).toEqual([]);
    // Apply, then confirm: the halt is latched, named in the console, and refuses the team's next order.
    await page.click('#killApply');
    await page.click('#killYes');
    await page.waitForSelector('#states tbody tr[data-scope="team:trading"][data-state="halted"]', { timeout: 10_000 });
    expect(await page.textContent('#killResult')).toBe('team:trading: active → halted by all (journaled)');
    expect(await page.textContent('#states tbody tr[data-scope="team:trading"]')).toContain('runaway bot, OPS-7');
    expect((await json(await api(stack)('/admin/risk'))).states).toEqual([
      expect.objectContaining({ scope: 'team:trading', state: 'halted', by: 'all', reason: 'runaway bot, OPS-7' }),
    ]);
    expect((await json(await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 10), 'bot'))).code).toBe(
      'TRADING_HALTED',
    );

    // One order's timeline, by clordId: what the gateway received and the exchange answered.
    await page.fill('#timelineId', 'console-1');
    await page.click('#timelineForm button[type=submit]');
    await page.waitForSelector('#timeline tbody tr[data-kind="answer"]', { timeout: 10_000 });
    const kinds = await page.$$eval('#timeline tbody tr', (rows) =>
      rows.map((row) => (row as unknown as { dataset: { kind: string } }).dataset.kind),
    );
    expect(kinds).toEqual(expect.arrayContaining(['received', 'answer']));
    expect(await page.textContent('#timeline tbody')).toContain('console-1');
    await page.screenshot({ path: CONSOLE_SCREENSHOT, fullPage: true });
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('refuses a client without admin: the page says forbidden and shows nothing', async () => {
    const page = await browser.newPage();
    await page.goto(`${stack.url}/console#ticket=${encodeURIComponent(await ticketOf('viewer'))}`);
    await page.waitForFunction(
      () =>
        /forbidden/.test(
          (
            globalThis as unknown as { document: { getElementById(id: string): { textContent: string } } }
          ).document.getElementById('status').textContent,
        ),
      undefined,
      { timeout: 10_000 },
    );
    expect(await page.isHidden('#main')).toBe(true);
    await page.close();
  });

  it('serves the page with a strict content security policy and no data in it', async () => {
    const res = await fetch(`${stack.url}/console`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'/);
    expect(await res.text()).not.toMatch(/pmgw_|retail\.orders/);
  });
});
