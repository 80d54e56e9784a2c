// Headless Chromium for the JS suites (Debian's /usr/bin/chromium through playwright-core; nothing is
// downloaded), and a page that reports its outcome on `window.result`.
import { chromium } from 'playwright-core';

/** `args` are added to the flags every suite uses; `bfcache`: the back/forward cache on (Playwright turns it off). */
export function launchChromium({ args = [], bfcache = false } = {}) {
  return chromium.launch({
    ignoreDefaultArgs: bfcache ? ['--disable-back-forward-cache'] : [],
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      ...args,
    ],
    // A bound for a start, not a figure: 20 s was broken beside clippy, cargo test and another
    // build (in one fresh-clone run, every launch of the bundler and hardening suites timed out).
    timeout: 120_000,
  });
}

/**
 * Opens `url` in a fresh page of `browser` and waits for its `window.result`, a minute for the load
 * and a minute for the result (bounds for a loaded machine). Returns it with the page's uncaught
 * errors and unhandled rejections (`pageErrors`) and its console messages.
 */
export async function openPage(browser, url) {
  const timeout = 60_000;
  const tab = await browser.newPage();
  const pageErrors = [];
  const messages = [];
  tab.on('pageerror', (err) => pageErrors.push(String(err)));
  tab.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
  try {
    await tab.goto(url, { timeout });
    await tab
      .waitForFunction(() => window.result, null, { timeout })
      .catch((err) => {
        throw new Error(
          `${url}: no result (${err.message}); page errors: ${pageErrors.join('; ')}; console: ${messages.join('; ')}`,
        );
      });
    return { result: await tab.evaluate(() => window.result), pageErrors, messages };
  } finally {
    await tab.close();
  }
}
