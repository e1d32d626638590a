import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium (apt-get install chromium; tools/ensure-system-deps.mjs and .ci/run install it), headless, with no background traffic. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
