// Prints one table: package size, per-call overhead against a hand-written fetch call (Node and
// headless Chromium), cold start, and throughput against the reference server on loopback.
//   node bench/bench.mjs PKG_DIR          (bench/run builds everything first)
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer, TOKEN } from '../tests/js/support/server.mjs';
import { measureOverhead, measureSame, abba, median } from './overhead.js';

const PKG = process.argv[2] ?? join(fileURLToPath(new URL('..', import.meta.url)), 'pkg');
const rows = [];
const row = (section, what, value) => rows.push([section, what, value]);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const size = (...files) => {
  const bytes = Buffer.concat(files.map((f) => readFileSync(join(PKG, f))));
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
};

// 1. Size.
const runtime = `snippets/${readdirSync(join(PKG, 'snippets'))[0]}/js/runtime.js`;
const wasm = size('plant_store_client_bg.wasm');
const glue = size('plant_store_client.js', runtime);
row('size', '.wasm', `${kb(wasm.raw)} raw, ${kb(wasm.gzip)} gzip`);
row('size', 'JS glue (glue + runtime.js)', `${kb(glue.raw)} raw, ${kb(glue.gzip)} gzip`);
for (const entry of ['index.js', 'node.mjs', 'deno.js', 'workerd.js', 'manual.js']) {
  try {
    const total = size('plant_store_client_bg.wasm', 'plant_store_client.js', runtime, entry);
    row('size', `build: ${entry} + glue + .wasm`, `${kb(total.raw)} raw, ${kb(total.gzip)} gzip`);
  } catch { /* this package has no such entry */ }
}

// 2. Per-call overhead, Node.
const api = await import(pathToFileURL(join(PKG, 'node.mjs')).href);
const node = await measureOverhead(api, { rounds: 30, perRound: 2000 });
const nodeSame = await measureSame({ rounds: 30, perRound: 2000 });
row('per call, Node ' + process.version, 'createPlant vs hand-written fetch', `${node.oursUs.toFixed(1)} µs vs ${node.theirsUs.toFixed(1)} µs = ${node.ratio.toFixed(2)}x`);
row('per call, Node ' + process.version, 'the same, time of all rounds (mean µs)',
  `${(node.totalMs[0] * 1000 / node.calls).toFixed(1)} µs vs ${(node.totalMs[1] * 1000 / node.calls).toFixed(1)} µs = ${node.totalRatio.toFixed(2)}x`);
row('per call, Node ' + process.version, 'resolution: hand-written vs a copy of it', `${nodeSame.ratio.toFixed(2)}x; time of all rounds ${nodeSame.totalRatio.toFixed(2)}x`);

// 3. Cold start, Node: a fresh process imports the package and makes the first call.
const cold = execFileSync(process.execPath, ['--input-type=module', '-e', `
  const t0 = performance.now();
  const api = await import(${JSON.stringify(pathToFileURL(join(PKG, 'node.mjs')).href)});
  const t1 = performance.now();
  const fetch = async () => new Response('{"name":"Fern"}', { status: 200 });
  await api.createPlant({ id: 1, name: 'Fern' }, { baseUrl: 'https://p.example', token: 't', fetch });
  const t2 = performance.now();
  console.log(JSON.stringify({ load: t1 - t0, first: t2 - t1 }));`]).toString();
const nodeCold = JSON.parse(cold);
row('cold start, Node', 'import (load + instantiate)', `${nodeCold.load.toFixed(1)} ms`);
row('cold start, Node', 'first createPlant (in-memory fetch)', `${nodeCold.first.toFixed(2)} ms`);

// 4. Throughput against the reference server on loopback, Node. Both sides run once to warm up
// (JIT, the connection pool), then ROUNDS times in ABBA order; the figures are the medians.
const server = await startServer({ www: fileURLToPath(new URL('.', import.meta.url)), pkg: PKG });
try {
  const N = 4000;
  const C = 32;
  const ROUNDS = 6;
  let id = Date.now() * 1000; // every plant is new to the server
  const run = async (call) => {
    let left = N;
    const start = performance.now();
    await Promise.all(Array.from({ length: C }, async () => {
      while (left-- > 0) await call(++id);
    }));
    return N / ((performance.now() - start) / 1000);
  };
  const client = new api.PlantStoreClient({ baseUrl: server.url, token: TOKEN });
  const ours = (i) => client.createPlant({ id: i, name: 'Fern' });
  const theirs = async (i) => {
    const response = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ id: i, name: 'Fern' }),
    });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    return response.json();
  };
  const { as: oursRates, bs: theirsRates } = await abba(() => run(ours), () => run(theirs), ROUNDS);
  const [o, t] = [median(oursRates), median(theirsRates)];
  row(`throughput, Node, ${N} calls at ${C} in flight`, `createPlant vs hand-written fetch, median of ${ROUNDS}`,
    `${o.toFixed(0)}/s vs ${t.toFixed(0)}/s = ${(t / o).toFixed(2)}x time (rounds: ${Math.min(...oursRates).toFixed(0)}–${Math.max(...oursRates).toFixed(0)}/s vs ${Math.min(...theirsRates).toFixed(0)}–${Math.max(...theirsRates).toFixed(0)}/s)`);

  // 5. Headless Chromium: per-call overhead and cold start, same page origin as the server.
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    // One page's figure moves by ±0.05x from page to page (garbage collection, JIT tiering), so the
    // per-call figure is the median of PAGES fresh pages; cold start is the first page's.
    const PAGES = 7;
    const pages = [];
    for (let i = 0; i < PAGES; i++) {
      const page = await browser.newPage();
      await page.goto(`${server.url}/blank.html`);
      pages.push(await page.evaluate(async () => {
        const t0 = performance.now();
        const api = await import('/pkg/index.js');
        const t1 = performance.now();
        const fetch = async () => new Response('{"name":"Fern"}', { status: 200 });
        await api.createPlant({ id: 1, name: 'Fern' }, { baseUrl: 'https://p.example', token: 't', fetch });
        const t2 = performance.now();
        const { measureOverhead, measureSame } = await import('/overhead.js');
        const ours = await measureOverhead(api, { rounds: 30, perRound: 2000 });
        const same = await measureSame({ rounds: 30, perRound: 2000 });
        return { load: t1 - t0, first: t2 - t1, ...ours, same: same.ratio, sameTotal: same.totalMs };
      }));
      await page.close();
    }
    const cold = pages[0];
    const ratios = pages.map((p) => p.ratio).sort((a, b) => a - b);
    const figures = pages.find((p) => p.ratio === ratios[PAGES >> 1]);
    const version = browser.version();
    row(`per call, Chromium ${version}`, `createPlant vs hand-written fetch, median of ${PAGES} pages`,
      `${figures.oursUs.toFixed(1)} µs vs ${figures.theirsUs.toFixed(1)} µs = ${figures.ratio.toFixed(2)}x (pages: ${ratios[0].toFixed(2)}–${ratios[PAGES - 1].toFixed(2)}x)`);
    // The time of all rounds, pooled over the pages: a collection lands in one round or the next,
    // so one page's total moves by ±0.1x; the pool of all pages' rounds moves less.
    const range = (xs) => `pages: ${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}x`;
    const pooled = (totals) => {
      const [a, b] = totals.reduce(([x, y], [ms1, ms2]) => [x + ms1, y + ms2], [0, 0]);
      return `${(a / b).toFixed(2)}x (${range(totals.map(([ms1, ms2]) => ms1 / ms2))})`;
    };
    const [oursMs, theirsMs] = pages.reduce(([x, y], p) => [x + p.totalMs[0], y + p.totalMs[1]], [0, 0]);
    const calls = pages.reduce((n, p) => n + p.calls, 0);
    row(`per call, Chromium ${version}`, `the same, time of all rounds of the ${PAGES} pages, interleaved (mean µs)`,
      `${(oursMs * 1000 / calls).toFixed(1)} µs vs ${(theirsMs * 1000 / calls).toFixed(1)} µs = ${pooled(pages.map((p) => p.totalMs))}`);

    // Each side alone, in pages of its own: the time of all its rounds counts the collections of its
    // own garbage and no other's. Every page loads the package; the pages of the sides take turns,
    // and a second set of hand-written pages gives the resolution.
    const sides = ['ours', 'theirs', 'theirs again'];
    const alone = Object.fromEntries(sides.map((side) => [side, []]));
    for (let i = 0; i < PAGES; i++) {
      for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
        const page = await browser.newPage();
        await page.goto(`${server.url}/blank.html`);
        alone[side].push(await page.evaluate(async (side) => {
          const api = await import('/pkg/index.js');
          const { measureAlone } = await import('/overhead.js');
          return measureAlone(api, side === 'ours' ? 'ours' : 'theirs', { rounds: 30, perRound: 2000 });
        }, side));
        await page.close();
      }
    }
    const meanUs = (side) => alone[side].reduce((us, p) => us + p.ms, 0) * 1000 / alone[side].reduce((n, p) => n + p.calls, 0);
    const pageUs = (side) => alone[side].map((p) => p.ms * 1000 / p.calls);
    const spread = (side) => `${Math.min(...pageUs(side)).toFixed(1)}–${Math.max(...pageUs(side)).toFixed(1)}`;
    row(`per call, Chromium ${version}`, `each side alone in ${PAGES} pages of its own, time of all rounds (mean µs)`,
      `${meanUs('ours').toFixed(1)} µs vs ${meanUs('theirs').toFixed(1)} µs = ${(meanUs('ours') / meanUs('theirs')).toFixed(2)}x (pages: ${spread('ours')} vs ${spread('theirs')} µs)`);
    const same = pages.map((p) => p.same);
    row(`per call, Chromium ${version}`, `resolution: hand-written vs a copy of it, median of ${PAGES} pages`,
      `${median(same).toFixed(2)}x (${range(same)}); time of all rounds ${pooled(pages.map((p) => p.sameTotal))}; ` +
      `alone ${(meanUs('theirs again') / meanUs('theirs')).toFixed(2)}x`);
    row('cold start, Chromium', 'import (fetch + compile + instantiate)', `${cold.load.toFixed(1)} ms`);
    row('cold start, Chromium', 'first createPlant (in-memory fetch)', `${cold.first.toFixed(2)} ms`);
  } finally {
    await browser.close();
  }
} finally {
  await server.stop();
}

const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length)));
console.log(rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  |  ')).join('\n'));
