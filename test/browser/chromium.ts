import { existsSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Debian's chromium, driven by playwright-core. Where it is missing the browser tests skip with
 * one loud line, except in CI (LEDGERHOOK_REQUIRE_SERVICES=1), where a missing browser fails.
 */
export function chromiumMissing(): string | false {
  if (existsSync(CHROMIUM_PATH)) return false;
  const message = `NO CHROMIUM at ${CHROMIUM_PATH}: browser tests skipped (apt-get install -y chromium)`;
  if (process.env.LEDGERHOOK_REQUIRE_SERVICES === '1')
    throw new Error(`${message}; LEDGERHOOK_REQUIRE_SERVICES=1 requires it`);
  console.error(`\n*** ${message} ***\n`);
  return message;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Loopback only: anything else the page asks for is recorded and refused. */
export function isLoopback(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'data:' || protocol === 'about:') return true;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
}

/** A browser context whose pages reach loopback only: anything else is recorded in `outside` and refused. */
export async function loopbackContext(
  browser: Browser,
  viewport: { width: number; height: number },
): Promise<{ context: BrowserContext; outside: string[] }> {
  const context = await browser.newContext({ viewport });
  const outside: string[] = [];
  await context.route('**/*', (route) => {
    const target = route.request().url();
    if (isLoopback(target)) return route.continue();
    outside.push(target);
    return route.abort();
  });
  return { context, outside };
}
