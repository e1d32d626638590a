// The ops console in Chromium: it loads with a one-time ticket, shows the shared budget moving while
// this test spends it, refuses a client without admin, and leaves a screenshot for the README.
import type { Browser } from 'playwright-core';

import { launchChromium } from './support/browser.js';

import { type Stack, api, json, startStack } from './support/stack.js';

export const CONSOLE_SCREENSHOT = 'docs/console.png';

let stack: Stack;
let browser: Browser;
beforeAll(async () => {
  stack = await startStack({ clients: [{ id: 'viewer', scopes: ['read:marketdata'] }] });
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
    Object.fromEntries(rows.map((row) => [(row as unknown as { dataset: { bucket: string } }).dataset.bucket, Number.parseFloat(row.querySelector('td.use')?.textContent ?? 'NaN')])),
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
        const rows = [...(globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<{ dataset: { bucket: string }; querySelector(s: string): { textContent: string } | null }> } }).document.querySelectorAll('#budget tbody tr')];
        return rows.some((row) => Number.parseFloat(row.querySelector('td.use')?.textContent ?? '0') >= (previous[row.dataset.bucket] ?? 0) + 10);
      },
      before,
      { timeout: 10_000 },
    );
    const after = await usage(page);
    const moved = Object.keys(after).filter((bucket) => after[bucket] >= (before[bucket] ?? 0) + 10);
    expect(moved.some((bucket) => bucket.startsWith('retail.'))).toBe(true);
    expect(Number(await page.textContent('#tokenRefreshes'))).toBeGreaterThanOrEqual(0);
    expect(await page.textContent('#readiness')).toMatch(/up/);
    await page.screenshot({ path: CONSOLE_SCREENSHOT, fullPage: true });
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('refuses a client without admin: the page says forbidden and shows nothing', async () => {
    const page = await browser.newPage();
    await page.goto(`${stack.url}/console#ticket=${encodeURIComponent(await ticketOf('viewer'))}`);
    await page.waitForFunction(() => /forbidden/.test((globalThis as unknown as { document: { getElementById(id: string): { textContent: string } } }).document.getElementById('status').textContent), undefined, { timeout: 10_000 });
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
