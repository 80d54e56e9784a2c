// What the package's import costs a page's main thread, per engine (Chromium through Playwright,
// Firefox ESR through geckodriver, WebKitGTK through WebKitWebDriver), in fresh pages: while a page
// imports /pkg/index.js and awaits init(), a MessageChannel ticks on its main thread, and the
// longest gap between two ticks is the longest the page was held. Three ways:
// - the package as it is: the .wasm decoded on import, compiled in the background;
// - the same with a validateNewPlant at once after the import, which then compiles the module on
//   the main thread (a synchronous compile at import would hold the page as long);
// - `new WebAssembly.Module` of the .wasm's bytes alone, timed;
// - for scale, the import of wasm-bindgen's glue alone (pkg/plant_store_client.js, no .wasm inside).
// Firefox is run with its timers at full precision; WebKit's are at 1 ms. A figure, not a test.
//   node bench/compile.mjs [PKG_DIR]
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tests/js/support/browser.mjs';
import { launchFirefox, launchWebKit } from '../tests/js/support/webkit.mjs';
import { median } from './overhead.js';
import { serveStatic } from './static.mjs';

const BENCH = fileURLToPath(new URL('.', import.meta.url));
const PKG = resolve(process.argv[2] ?? join(BENCH, '../pkg'));
const PAGES = 9;

/** In the page: the longest main-thread gap while importing the package, or compiling its .wasm. */
async function measure(way) {
  let last;
  let longest = 0;
  let ticking = true;
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (ticking) channel.port2.postMessage(0);
  };
  const idle = () => new Promise((resolve) => setTimeout(resolve, 50));
  if (way === 'module') {
    const bytes = await (await fetch('/pkg/plant_store_client_bg.wasm')).arrayBuffer();
    await idle();
    const start = performance.now();
    new WebAssembly.Module(bytes);
    return performance.now() - start;
  }
  // The script fetched once first, so that its request is not in the figure.
  const script = way === 'glue' ? '/pkg/plant_store_client.js' : '/pkg/index.js';
  await fetch(script);
  await idle();
  last = performance.now();
  channel.port2.postMessage(0);
  const start = performance.now();
  const api = await import(script);
  if (way === 'glue') {
    await idle();
    ticking = false;
    return { longest };
  }
  const imported = performance.now() - start;
  if (way === 'validate') api.validateNewPlant({ id: 1, name: 'Fern' });
  await api.init();
  const ready = performance.now() - start;
  await idle();
  ticking = false;
  return { longest, imported, ready };
}

const server = await serveStatic({ '/': BENCH, '/pkg/': PKG });
const engines = {
  Chromium: async () => {
    const browser = await launchChromium();
    return {
      version: browser.version(),
      run: async (way) => {
        const context = await browser.newContext();
        try {
          const page = await context.newPage();
          await page.goto(`${server.url}/blank.html`);
          return await page.evaluate(measure, way);
        } finally {
          await context.close();
        }
      },
      stop: () => browser.close(),
    };
  },
  Firefox: async () => {
    const firefox = await launchFirefox({ prefs: { 'privacy.reduceTimerPrecision': false } });
    return webdriver(firefox, 'Firefox ESR');
  },
  WebKit: async () => webdriver(await launchWebKit(), 'WebKitGTK'),
};

/** A WebDriver browser: a session, a fresh page for each run. */
async function webdriver(driver, version) {
  const session = await driver.newSession();
  let page = 0;
  return {
    version,
    run: async (way) => {
      await session.navigate(`${server.url}/blank.html?${page++}`);
      return session.run(measure, way);
    },
    stop: () => driver.stop(),
  };
}

const ms = (x) => `${x.toFixed(1)} ms`;
try {
  for (const [name, launch] of Object.entries(engines)) {
    const engine = await launch();
    try {
      const samples = { import: [], validate: [], module: [], glue: [] };
      for (let i = 0; i < PAGES; i++)
        for (const way of Object.keys(samples)) samples[way].push(await engine.run(way));
      const section = `the page's main thread at import, ${name} (${engine.version}), medians of ${PAGES} fresh pages`;
      const row = (what, value) => console.log(`  ${what.padEnd(76)} | ${value}`);
      console.log(`\n${section}`);
      const figure = (way, key = (s) => s) => {
        const values = samples[way].map(key);
        return `${ms(median(values))} (least ${ms(Math.min(...values))})`;
      };
      row(
        'import, the .wasm compiled in the background: longest held',
        `${figure('import', (s) => s.longest)}; import resolved ${figure('import', (s) => s.imported)}, init() ${figure('import', (s) => s.ready)}`,
      );
      row(
        'import, then validateNewPlant at once (compiles on the main thread): longest held',
        `${figure('validate', (s) => s.longest)}; init() ${figure('validate', (s) => s.ready)}`,
      );
      row('new WebAssembly.Module of the .wasm alone', figure('module'));
      row(
        "for scale: import of wasm-bindgen's glue alone (no .wasm inside): longest held",
        figure('glue', (s) => s.longest),
      );
    } finally {
      await engine.stop();
    }
  }
} finally {
  await server.stop();
}
