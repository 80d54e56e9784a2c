// The outbox suites' browser side: headless Chromium pages of a routed origin, http://outbox.test/
// (Playwright answers it, so that a page reloads while the context is offline), each with the
// package's outbox entry loaded and its exports on `window`, against a Plant Store on loopback
// (which `context.setOffline(true)` cuts off). Every POST a page sends to that store is recorded
// with its plant id and Idempotency-Key.
import { existsSync, readFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { launchChromium } from './browser.mjs';
import { PKG } from './server.mjs';

export const ORIGIN = 'http://outbox.test';
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

/** A page whose module script is `script`. */
export const html = (script) =>
  `<!doctype html><meta charset="utf-8"><script type="module">${script}</script>`;

// The page: the outbox entry's exports on `window`, and `track(outbox)`, which keeps its change
// events in `window.changes` and its close events in `window.closes`.
const PAGE = html(`
  import * as api from '/pkg/outbox/index.js';
  Object.assign(window, api);
  window.changes = [];
  window.closes = [];
  window.track = (outbox) => {
    outbox.addEventListener('change', (e) => changes.push(e.detail));
    outbox.addEventListener('close', (e) => closes.push(e.detail));
  };
  window.ready = true;`);

/**
 * Chromium with one context whose pages are served at ORIGIN: `/` (and `/tab`) the page above,
 * `/pkg/…` the package (`pkg`, default $PKG_DIR; CORS open), any other path from `pages` (path → HTML). `posts` collects
 * every POST to `api`. `bfcache`: the back/forward cache on.
 */
export async function startBrowser({ api, pages = {}, pkg = PKG, bfcache }) {
  // A routed origin counts as public: Chromium's Local Network Access would ask the user before its
  // page may call loopback. It is made a secure context, as a page on https is, for the Web Locks
  // API (a page can take it away: `withoutWebLocks`).
  const browser = await launchChromium({
    bfcache,
    args: [
      '--disable-features=LocalNetworkAccessChecks',
      `--unsafely-treat-insecure-origin-as-secure=${ORIGIN}`,
    ],
  });
  const context = await browser.newContext();
  const posts = [];
  await context.route(`${ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    const headers = { 'access-control-allow-origin': '*' };
    if (path === '/' || path === '/tab')
      return route.fulfill({ contentType: 'text/html', body: PAGE });
    if (pages[path]) return route.fulfill({ contentType: 'text/html', body: pages[path] });
    const file = normalize(join(pkg, path.replace(/^\/pkg\//, '')));
    if (!path.startsWith('/pkg/') || !file.startsWith(`${pkg}/`) || !existsSync(file))
      return route.fulfill({ status: 404, headers });
    return route.fulfill({ contentType: TYPES[extname(file)], headers, body: readFileSync(file) });
  });
  context.on('request', (request) => {
    if (request.method() !== 'POST' || !request.url().startsWith(api)) return;
    const id = JSON.parse(request.postData()).id;
    // The header is a Structured Fields string: the key in quotes.
    const key = request.headers()['idempotency-key'];
    posts.push({ id: String(id), key: key && JSON.parse(key), at: Date.now() });
  });
  /** A page of the routed origin, its package loaded; `init` runs before its scripts. */
  async function tab(path = '/', init) {
    const page = await context.newPage();
    if (init) await page.addInitScript(init);
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (err) => console.log(`page error: ${err}`));
    await page.goto(`${ORIGIN}${path}`);
    if (path === '/' || path === '/tab') await page.waitForFunction(() => window.ready);
    return page;
  }
  return { browser, context, posts, tab, close: () => browser.close() };
}

/** A script for `page.addInitScript`: the page has no Web Locks API, as browsers before 2022. */
export const withoutWebLocks = () => {
  delete Navigator.prototype.locks;
};

/** Opens the outbox `name` in `page` as `window.outbox`, its events tracked. */
export function openIn(page, options) {
  return page.evaluate(async (options) => {
    window.outbox = await PlantOutbox.open(options);
    track(outbox);
  }, options);
}

/** The entries of the page's outbox. */
export const entries = (page) => page.evaluate(() => outbox.entries());

/** Waits until the page's outbox holds `count` entries, each in `state`. */
export const settled = (page, count, state = 'created') =>
  page.waitForFunction(
    ({ count, state }) =>
      outbox.entries().length === count && outbox.entries().every((e) => e.state === state),
    { count, state },
    { timeout: 60_000 },
  );

/** Resolves once `check()` is true, polling every 50 ms; fails after `ms`. */
export async function until(check, what, ms = 30_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
