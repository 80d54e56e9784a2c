// The load and memory runs of tests/js/hardening.test.mjs at the sizes where the figure is the
// point, beside the suite's own size: createPlant calls at 64 in flight through one client (calls
// per second, the wasm memory's growth) and invalid calls in a row (time per call, the growth),
// 1,000 and 10,000 of each; and the time of the suite's 200 of 80,000 repeated keys. In headless
// Chromium against the reference server on loopback, from the suite's page (tests/hardening/), a
// fresh page for each run. The suite runs 1,000 of each. Figures, not pass/fail.
//   node bench/load.mjs [PKG_DIR]        (bench/run builds the package and the server first)
import { join, resolve } from 'node:path';
import { launchChromium } from '../tests/js/support/browser.mjs';
import { startServer, ROOT } from '../tests/js/support/server.mjs';

const PKG = resolve(process.argv[2] ?? join(ROOT, 'pkg'));
const TOKEN = 'bench-load-token-0123';
const SIZES = [1_000, 10_000];
const INFLIGHT = 64;
/** The invalid calls before the memory is read, as in the suite. */
const WARMUP = 200;

const server = await startServer({ token: TOKEN, www: join(ROOT, 'tests/hardening'), pkg: PKG });
const browser = await launchChromium();
const watchdog = setTimeout(() => {
  console.error('bench/load.mjs: not done after 10 min; stopping');
  process.exit(1);
}, 600_000);

/** A fresh page of the harness, set up: a fresh instance, so a fresh wasm memory. */
async function harness() {
  const page = await browser.newPage();
  await page.goto(`${server.url}/index.html`);
  await page.waitForFunction(() => globalThis.harnessReady === true, null, { timeout: 60_000 });
  await page.evaluate((token) => globalThis.harness.setup({ token }), TOKEN);
  return page;
}

const rows = [];
let base = 70_000_000;
try {
  for (const n of SIZES) {
    const page = await harness();
    const r = await page.evaluate((args) => globalThis.harness.load(args), {
      n,
      inflight: INFLIGHT,
      base,
      deadlineMs: 300_000,
    });
    base += n;
    await page.close();
    rows.push([
      `${n} createPlant calls, ${INFLIGHT} in flight`,
      `${Math.round(n / (r.ms / 1000))} calls/s; ${r.ok}/${n} ok`,
      `${r.memoryAfter - r.memoryBefore} bytes (${r.memoryBefore} -> ${r.memoryAfter})`,
    ]);
  }
  for (const n of SIZES) {
    const page = await harness();
    const r = await page.evaluate(
      ([count, warmup]) => globalThis.harness.invalidCalls(count, warmup),
      [n, WARMUP],
    );
    await page.close();
    rows.push([
      `${n} invalid calls in a row (createPlant + validateNewPlant), after ${r.warmup}`,
      `${((r.ms * 1000) / n).toFixed(0)} µs a call; ${r.failures} not refused`,
      `${r.memoryAfter - r.memoryBefore} bytes (${r.memoryBefore} -> ${r.memoryAfter})`,
    ]);
  }
  // The hardening suite's answer of 80,000 repeated keys (0.9 MiB), read in linear time: its time.
  const page = await harness();
  const ms = await page.evaluate(async (token) => {
    const { createPlant } = await import('/pkg/plant_store_client.js');
    const options = { baseUrl: `${location.origin}/__test/fault/200-many-keys`, token };
    const times = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await createPlant({ id: 80_000_000 + i, name: 'Fern', tag: 'x'.repeat(200_000) }, options);
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[2];
  }, TOKEN);
  await page.close();
  rows.push(['a 200 of 80,000 repeated keys (0.9 MiB)', `${ms.toFixed(0)} ms (median of 5)`, '']);
} finally {
  clearTimeout(watchdog);
  await browser.close();
  await server.stop();
}

console.log(`load and memory, headless Chromium, reference server on loopback (bench/load.mjs)`);
const widths = [0, 1].map((i) => Math.max(...rows.map((r) => r[i].length)));
console.log(`  ${'run'.padEnd(widths[0])}  ${'speed'.padEnd(widths[1])}  wasm memory growth`);
for (const [what, speed, growth] of rows)
  console.log(`  ${what.padEnd(widths[0])}  ${speed.padEnd(widths[1])}  ${growth}`);
