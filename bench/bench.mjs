// Prints one table: package size (and what each library adds to the .wasm), per-call overhead against
// hand-written fetch calls (Node and headless Chromium), cold start against a hand-written call (Node,
// Chromium unbundled, Chromium with a Vite production build), and throughput against the reference
// server on loopback. The peers (bench/peers/: hey-api + zod, + zod/mini, + valibot, openapi-fetch),
// generated from the contract at the start of the run, are measured in the same run the same way:
// size (Vite production build), per call (Node, Chromium) and cold start (Node, Vite). It ends with
// the peers and ours side by side.
//   node bench/bench.mjs PKG_DIR      (bench/run builds and installs everything first)
//
// Every timing comes from both sides measured alternately (ABBA order: a warm-up of each side, then
// A B, B A, A B, …) and is a median of the pairs, so that drift falls on both sides alike.
// Every step is bounded: child processes, page loads and page work have timeouts, and a watchdog
// ends the whole run after DEADLINE_MS.
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { extname, join, relative, resolve } from 'node:path';
import { gzip9 } from './gzip.mjs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer, TOKEN } from '../tests/js/support/server.mjs';
import { measureOverhead, measurePeers, abba, median, callsPerSecond } from './overhead.js';
import { sizes } from './sizes.mjs';
import { lines } from './lines.mjs';
import { outboxRows } from './outbox.mjs';
import { serveStatic } from './static.mjs';
import { buildPeers, findSpec } from './peers/build.mjs';

const BENCH = fileURLToPath(new URL('.', import.meta.url));
const PKG = resolve(process.argv[2] ?? join(BENCH, '../pkg'));
const DEADLINE_MS = 20 * 60_000;

// Whatever was started, stopped in reverse order at the end, on an error and by the watchdog.
const started = [];
const stopAll = async () => {
  while (started.length)
    await started
      .pop()()
      .catch(() => {});
};
const watchdog = setTimeout(async () => {
  console.error(`bench: not done after ${DEADLINE_MS / 60_000} min; stopping`);
  await stopAll();
  process.exit(1);
}, DEADLINE_MS);

const rows = [];
const row = (section, what, value) => rows.push([section, what, value]);
// The side-by-side table at the end: one column per side, one row per figure.
const SIDES = ['hand-written'];
const FIGURES = {
  size: 'browser bytes, Vite build, gzip -9, over the hand-written app',
  node: 'per call, Node',
  chromium: 'per call, Chromium',
  nodeCold: 'cold start, Node (import + first call, paired)',
  chromiumCold: 'cold start, Chromium unbundled, loopback (first call, paired)',
  chromiumCold20: 'cold start, Chromium unbundled, 20 ms per response (first call, paired)',
  viteCold: 'cold start, Chromium, Vite build (first call, paired)',
  throughput: 'throughput, reference server on loopback, Node (time per call, paired)',
};
const summary = new Map(Object.values(FIGURES).map((figure) => [figure, {}]));
const cell = (figure, side, value) =>
  summary.set(figure, { ...summary.get(figure), [side]: value });
const run = promisify(execFile);
/** `promise`, or an error after `ms`. */
const within = (ms, what, promise) =>
  Promise.race([
    promise,
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms).unref(),
    ),
  ]);
const ms = (x) => `${x.toFixed(1)} ms`;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const PEER_ROUNDS = { rounds: 20, perRound: 1000 };
const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)} ms`;
const progress = (what) => console.error(`bench: ${what}`);

try {
  // 1. Size: gzip -9 of what each runtime loads, and twiggy's breakdown of the .wasm (sizes.mjs).
  progress('sizes');
  rows.push(...sizes(PKG), ...lines());

  const tmp = mkdtempSync(join(tmpdir(), 'plant-store-bench-'));
  started.push(async () => rmSync(tmp, { recursive: true, force: true }));

  // The peers, generated from the contract and built into tmp/peers (bench/peers/build.mjs).
  const spec = findSpec();
  progress(`peers: generating from ${spec}`);
  const peers = await within(300_000, 'generating the peers', buildPeers(join(tmp, 'peers'), spec));
  SIDES.push(...peers.map((p) => p.label), 'ours');
  const peerNames = peers.map((p) => p.name);

  // 2. Per call, Node: createPlant through a PlantStoreClient with an in-memory fetch, against the bare
  // hand-written call and the hand-written call with an AbortController and a 10 s timeout, 30 ABBA
  // rounds of 2000 calls each (overhead.js). Then each peer against the bare hand-written call, 20
  // rounds of 1000 calls (a validating peer's call takes several times ours).
  progress('per call, Node');
  const nodeSection = `per call, Node ${process.version}, in-memory fetch, 30 ABBA rounds of 2000 calls (the peers: 20 of 1000)`;
  const api = await import(pathToFileURL(join(PKG, 'node.mjs')).href);
  const nodeOurs = await measureOverhead(api, { rounds: 30, perRound: 2000 });
  perCallRows(nodeSection, nodeOurs);
  const nodePeers = await measurePeers(
    Object.fromEntries(
      await Promise.all(
        peers.map(async (p) => [
          p.label,
          (await import(pathToFileURL(p.node).href)).makeCreatePlant,
        ]),
      ),
    ),
    PEER_ROUNDS,
  );
  peerRows(nodeSection, FIGURES.node, peers, nodePeers);
  cell(FIGURES.node, 'hand-written', '1.00x');
  cell(FIGURES.node, 'ours', `${nodeOurs.bare.ratio.toFixed(2)}x`);

  // The packed package installed into a scratch consumer, as a user gets it (tests/js/runtimes.test.mjs
  // does the same), with the cold-start modules (bench/cold/) next to it; each peer's cold-start module
  // is cold/peer.js importing that peer (its node.mjs here, its entry.ts in a Vite app).
  progress('npm pack + install into a scratch consumer');
  const { stdout: packed } = await run(
    'npm',
    ['pack', PKG, '--pack-destination', tmp, '--silent'],
    { cwd: tmp, timeout: 60_000 },
  );
  const consumer = join(tmp, 'consumer');
  cpSync(join(BENCH, 'cold'), join(consumer, 'cold'), { recursive: true });
  const peerModule = (_peer, from, file) =>
    readFileSync(join(BENCH, 'cold/peer.js'), 'utf8').replace(
      "'plant-store-peer'",
      JSON.stringify(
        relative(from, file)
          .replaceAll('\\', '/')
          .replace(/^(?!\.)/, './'),
      ),
    );
  for (const peer of peers)
    writeFileSync(
      join(consumer, `cold/${peer.name}.js`),
      peerModule(peer, join(consumer, 'cold'), peer.node),
    );
  writeFileSync(
    join(consumer, 'package.json'),
    '{ "name": "bench-consumer", "private": true, "type": "module" }\n',
  );
  await run(
    'npm',
    [
      'install',
      '--offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      join(tmp, packed.trim().split('\n').at(-1)),
    ],
    { cwd: consumer, timeout: 120_000 },
  );

  // 3a. Cold start, Node: a fresh process runs cold/ours.js (imports the package: node.mjs; then the
  // first createPlant) or cold/theirs.js (the hand-written call, no package). performance.now()
  // counts from the process's start, so both figures include Node's own start and module loading.
  progress('cold start, Node');
  const NODE_PAIRS = 15;
  const nodeCold = (side) => async () => {
    const { stdout } = await run(process.execPath, ['cold/node.mjs', side], {
      cwd: consumer,
      timeout: 20_000,
    });
    return checked(JSON.parse(stdout), `node ${side}`);
  };
  const node = await abba(nodeCold('ours'), nodeCold('theirs'), NODE_PAIRS);
  const nodeColdSection = `cold start, Node ${process.version}, ${NODE_PAIRS} pairs of fresh processes, ms since process start`;
  coldRow(nodeColdSection, 'import done', node, 'imported');
  const nodeColdFigure = FIGURES.nodeCold;
  cell(
    nodeColdFigure,
    'ours',
    coldRow(nodeColdSection, 'import + first call done', node, 'called'),
  );
  cell(nodeColdFigure, 'hand-written', '0');
  stepRows(
    `cold start, Node ${process.version}, ours step by step (cold/steps.js), ${NODE_PAIRS} pairs of fresh processes`,
    await abba(nodeCold('steps'), nodeCold('theirs'), NODE_PAIRS),
    'import of the package (node.mjs: the .wasm decoded, compiled and instantiated)',
    'node',
  );
  for (const peer of peers) {
    const pairs = await abba(nodeCold(peer.name), nodeCold('theirs'), NODE_PAIRS);
    cell(
      nodeColdFigure,
      peer.label,
      coldRow(
        nodeColdSection,
        `${peer.label}: import + first call done`,
        pairs,
        'called',
        peer.label,
      ),
    );
  }

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
    ],
    timeout: 30_000,
  });
  started.push(() => browser.close());
  const chromiumVersion = browser.version();

  // 2b. Per call, Chromium: the same measurement in PAGES fresh pages (one page's figure moves by
  // ±0.05x with garbage collection and JIT tiering); each figure is the median over the pages.
  progress('per call, Chromium');
  const PAGES = 7;
  const plain = await serveStatic({ '/': BENCH, '/pkg/': PKG, '/peers/': join(tmp, 'peers') });
  started.push(plain.stop);
  const pages = [];
  for (let i = 0; i < PAGES; i++) {
    const page = await browser.newPage();
    await page.goto(`${plain.url}/blank.html`, { timeout: 20_000 });
    pages.push(
      await within(
        300_000,
        'per-call page',
        page.evaluate(
          async ([names, peerRounds]) => {
            const api = await import('/pkg/index.js');
            const { measureOverhead, measurePeers } = await import('/overhead.js');
            const ours = await measureOverhead(api, { rounds: 30, perRound: 2000 });
            const peers = {};
            for (const name of names)
              peers[name] = (await import(`/peers/${name}/browser.js`)).makeCreatePlant;
            return { ...ours, peers: await measurePeers(peers, peerRounds) };
          },
          [peerNames, PEER_ROUNDS],
        ),
      ),
    );
    await page.close();
  }
  const medianOf = (f) => median(pages.map(f));
  const rangeOf = (f) =>
    `pages ${Math.min(...pages.map(f)).toFixed(2)}–${Math.max(...pages.map(f)).toFixed(2)}x`;
  const perPage = Object.fromEntries(
    ['bare', 'abort', 'same'].map((k) => [
      k,
      {
        aUs: medianOf((p) => p[k].aUs),
        bUs: medianOf((p) => p[k].bUs),
        ratio: medianOf((p) => p[k].ratio),
        range: rangeOf((p) => p[k].ratio),
      },
    ]),
  );
  const chromiumSection = `per call, Chromium ${chromiumVersion}, medians of ${PAGES} fresh pages (the peers: browser.js, 20 rounds of 1000 calls)`;
  perCallRows(chromiumSection, perPage);
  const chromiumPeers = Object.fromEntries(
    peers.map((p) => [
      p.label,
      {
        aUs: medianOf((pg) => pg.peers[p.name].aUs),
        bUs: medianOf((pg) => pg.peers[p.name].bUs),
        ratio: medianOf((pg) => pg.peers[p.name].ratio),
        range: rangeOf((pg) => pg.peers[p.name].ratio),
        validates: pages[0].peers[p.name].validates,
      },
    ]),
  );
  peerRows(chromiumSection, FIGURES.chromium, peers, chromiumPeers);
  cell(FIGURES.chromium, 'hand-written', '1.00x');
  cell(FIGURES.chromium, 'ours', `${perPage.bare.ratio.toFixed(2)}x`);

  // 3b. Cold start, Chromium, the package unbundled: cold/ours.html (an import map sends
  // `plant-store-client` to /pkg/index.js: the .wasm inside, compiled in the background) against
  // cold/theirs.html, served by bench/static.mjs. Each sample in a fresh
  // browser context (no shared cache); the figure is performance.now() when the first call is done,
  // i.e. ms since navigation start. Once on loopback as is, once with 20 ms before every response.
  const PAIRS = 15;
  const coldPage = (origin, path) => async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (err) => errors.push(String(err)));
      await page.goto(origin + path, { timeout: 20_000 });
      await page
        .waitForFunction(() => globalThis.coldStart, null, { timeout: 20_000 })
        .catch((err) => {
          throw new Error(`${path}: ${errors.join('; ') || err.message}`);
        });
      return checked(await page.evaluate(() => globalThis.coldStart), path);
    } finally {
      await context.close();
    }
  };
  // Each section also times cold/preload.html: ours.html with a modulepreload link for index.js, so
  // that its request starts with the page's instead of after ours.js has run.
  const coldChromium = async (section, origin, [ours, theirs]) => {
    const figure = coldRow(
      section,
      'navigation start → first call done',
      await abba(coldPage(origin, ours), coldPage(origin, theirs), PAIRS),
      'called',
    );
    coldRow(
      section,
      'the same with <link rel="modulepreload"> of index.js in the page',
      await abba(coldPage(origin, '/cold/preload.html'), coldPage(origin, theirs), PAIRS),
      'called',
    );
    return figure;
  };
  const unbundled = ['/cold/ours.html', '/cold/theirs.html'];
  progress('cold start, Chromium, unbundled');
  cell(
    FIGURES.chromiumCold,
    'ours',
    await coldChromium(
      `cold start, Chromium, unbundled /pkg/index.js, ${PAIRS} pairs of fresh contexts, loopback`,
      plain.url,
      unbundled,
    ),
  );
  cell(FIGURES.chromiumCold, 'hand-written', '0');
  const delayed = await serveStatic({ '/': BENCH, '/pkg/': PKG }, { delayMs: 20 });
  started.push(delayed.stop);
  cell(
    FIGURES.chromiumCold20,
    'ours',
    await coldChromium(
      `cold start, Chromium, unbundled /pkg/index.js, ${PAIRS} pairs of fresh contexts, +20 ms per response`,
      delayed.url,
      unbundled,
    ),
  );
  cell(FIGURES.chromiumCold20, 'hand-written', '0');
  // The same, taken apart (cold/steps.html: index.js, then each step on its own; see cold/steps.js).
  progress('cold start, Chromium, step by step');
  const steps = (origin) =>
    abba(coldPage(origin, '/cold/steps.html'), coldPage(origin, unbundled[1]), PAIRS);
  stepRows(
    `cold start, Chromium, ours step by step (cold/steps.html, /pkg/index.js), ${PAIRS} pairs of fresh contexts, loopback`,
    await steps(plain.url),
    'the package: index.js fetched and run (the .wasm decoded, its compile started)',
    'page',
  );
  stepRows(
    `cold start, Chromium, ours step by step (cold/steps.html, /pkg/index.js), ${PAIRS} pairs of fresh contexts, +20 ms per response`,
    await steps(delayed.url),
    'the package: index.js fetched and run (the .wasm decoded, its compile started)',
    'page',
  );

  // 3c. Cold start, Chromium, a Vite production build: one-page apps in the consumer, main.js =
  // cold/ours.js (imports the installed package), cold/theirs.js, or cold/peer.js importing a peer's
  // entry.ts (the generated code, from source), each built with `vite build` and served from its dist/
  // by its own static server; each side measured against the hand-written app as 3b. The same builds
  // give each side's size in the browser: the files of its dist/ but index.html, each gzip -9, summed.
  progress('cold start, Chromium, Vite production builds');
  const { build, version: viteVersion } = await import('vite');
  const apps = { theirs: { label: 'hand-written' }, ours: { label: 'ours' } };
  for (const peer of peers) apps[peer.name] = { label: peer.label, peer };
  for (const [side, app] of Object.entries(apps)) {
    const root = join(consumer, `vite-${side}`);
    mkdirSync(root);
    writeFileSync(
      join(root, 'main.js'),
      app.peer
        ? peerModule(app.peer, root, app.peer.entry)
        : readFileSync(join(BENCH, `cold/${side}.js`)),
    );
    writeFileSync(
      join(root, 'index.html'),
      `<!doctype html><meta charset="utf-8"><title>cold start, ${side}</title>\n<script type="module" src="./main.js"></script>\n`,
    );
    await within(
      120_000,
      `vite build of ${side}`,
      build({
        root,
        configFile: false,
        logLevel: 'error',
        build: { outDir: 'dist', emptyOutDir: true },
      }),
    );
    app.bytes = distBytes(join(root, 'dist'));
    const server = await serveStatic({ '/': join(root, 'dist') });
    started.push(server.stop);
    app.url = server.url;
  }
  const viteSize = `size in the browser: a Vite ${viteVersion} production build, its files but index.html, each gzip -9`;
  const sizeFigure = FIGURES.size;
  const shipped = gzip9(readFileSync(join(PKG, 'index.js')));
  for (const app of Object.values(apps)) {
    const over = app.bytes.gzip - apps.theirs.bytes.gzip;
    row(
      viteSize,
      app.label,
      `${kb(app.bytes.raw)} raw, ${kb(app.bytes.gzip)} gzip -9` +
        (app === apps.theirs ? '' : `: ${kb(over)} over the hand-written app`) +
        `  (${app.bytes.files.join(', ')})`,
    );
    cell(
      sizeFigure,
      app.label,
      app === apps.theirs
        ? `0 (${kb(app.bytes.gzip)})`
        : app === apps.ours
          ? `${kb(over)} (the package's index.js, the .wasm inside: ${kb(shipped)})`
          : kb(over),
    );
  }
  const viteSection = `cold start, Chromium, Vite ${viteVersion} production build, ${PAIRS} pairs of fresh contexts, loopback`;
  const viteFigure = FIGURES.viteCold;
  const vitePairs = (side) =>
    abba(coldPage(apps[side].url, '/index.html'), coldPage(apps.theirs.url, '/index.html'), PAIRS);
  cell(
    viteFigure,
    'ours',
    coldRow(viteSection, 'navigation start → first call done', await vitePairs('ours'), 'called'),
  );
  cell(viteFigure, 'hand-written', '0');
  for (const peer of peers) {
    cell(
      viteFigure,
      peer.label,
      coldRow(
        viteSection,
        `${peer.label}: navigation start → first call done`,
        await vitePairs(peer.name),
        'called',
        peer.label,
      ),
    );
  }

  // The outbox: its drain beside plain calls, and open and a round with 100 and 10,000 created
  // entries kept (bench/outbox.mjs).
  progress('outbox, Chromium');
  rows.push(...(await within(600_000, 'the outbox', outboxRows(PKG))));

  // 4. Throughput against the reference server on loopback, Node: N calls, C in flight, each call a new
  // plant. Both sides run once to warm up (JIT, the connection pool), then ROUNDS times in ABBA order;
  // the figures are the medians.
  progress('throughput, Node');
  const server = await startServer();
  started.push(server.stop);
  const N = 4000;
  const C = 32;
  const ROUNDS = 6;
  const ids = { next: Date.now() * 1000 }; // every plant is new to the server
  const rate = (call) => callsPerSecond(call, { n: N, inFlight: C, ids });
  const client = new api.PlantStoreClient({ baseUrl: server.url, token: TOKEN });
  const ours = (i) => client.createPlant({ id: i, name: 'Fern' });
  const theirs = async (i) => {
    const response = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
      body: JSON.stringify({ id: i, name: 'Fern' }),
    });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    return response.json();
  };
  const { as: oursRates, bs: theirsRates } = await within(
    300_000,
    'throughput',
    abba(
      () => rate(ours),
      () => rate(theirs),
      ROUNDS,
    ),
  );
  const [o, t] = [median(oursRates), median(theirsRates)];
  const paired = median(oursRates.map((r, i) => theirsRates[i] / r));
  const spread = (xs) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}/s`;
  row(
    `throughput, Node, reference server on loopback, ${N} calls at ${C} in flight`,
    `createPlant vs bare hand-written fetch, median of ${ROUNDS} rounds`,
    `${o.toFixed(0)}/s vs ${t.toFixed(0)}/s = ${(t / o).toFixed(2)}x time; paired rounds ${paired.toFixed(2)}x (rounds: ${spread(oursRates)} vs ${spread(theirsRates)})`,
  );
  cell(FIGURES.throughput, 'hand-written', '1.00x');
  cell(FIGURES.throughput, 'ours', `${paired.toFixed(2)}x`);

  // The table: each section's name on a line of its own, then its rows, `what | figure`; sections in
  // the order of their first row.
  console.log(
    `node ${process.version}, Chromium ${chromiumVersion}, nproc ${cpus().length} (${cpus()[0].model.trim()})`,
  );
  const width = Math.max(...rows.map((r) => r[1].length));
  const sections = [...new Set(rows.map((r) => r[0]))];
  for (const section of sections) {
    console.log(`\n${section}`);
    for (const [, what, value] of rows.filter((r) => r[0] === section))
      console.log(`  ${what.padEnd(width)} | ${value}`);
  }
  // Then the peers and ours side by side (the figures above, as a Markdown table).
  console.log(
    '\nside by side (the figures above; per call: paired ratio to the bare hand-written call; cold start: median of paired differences to the hand-written call)\n',
  );
  const line = (cells) => console.log(`| ${cells.join(' | ')} |`);
  line(['', ...SIDES]);
  line(['---', ...SIDES.map(() => '---')]);
  for (const [figure, cells] of summary) line([figure, ...SIDES.map((side) => cells[side] ?? '—')]);
} finally {
  await stopAll();
  clearTimeout(watchdog);
}

/** The rows of one per-call measurement: ours against each hand-written call, and the resolution. */
function perCallRows(section, { bare, abort, same }) {
  const range = (c) => (c.range ? ` (${c.range})` : '');
  row(
    section,
    'createPlant / bare hand-written call (paired median ratio)',
    `${bare.ratio.toFixed(2)}x${range(bare)}: ${bare.aUs.toFixed(1)} µs vs ${bare.bUs.toFixed(1)} µs per call`,
  );
  row(
    section,
    'createPlant / hand-written call with AbortController + 10 s timeout',
    `${abort.ratio.toFixed(2)}x${range(abort)}: ${abort.aUs.toFixed(1)} µs vs ${abort.bUs.toFixed(1)} µs per call`,
  );
  row(
    section,
    'resolution: bare hand-written call / a copy of itself',
    `${same.ratio.toFixed(2)}x${range(same)}: ${same.aUs.toFixed(1)} µs vs ${same.bUs.toFixed(1)} µs per call`,
  );
}

/** The rows of each peer against the bare hand-written call, and their cells in the side-by-side table. */
function peerRows(section, figure, peers, byPeer) {
  for (const { label, validates } of peers) {
    const c = byPeer[label];
    // A peer that should validate and lets a nameless NewPlant or Plant through is not configured as
    // the bench says: stop rather than print its figure.
    if (validates && !(c.validates.request && c.validates.response))
      throw new Error(`${label} does not validate: ${JSON.stringify(c.validates)}`);
    const range = c.range ? ` (${c.range})` : '';
    row(
      section,
      `${label} / bare hand-written call`,
      `${c.ratio.toFixed(2)}x${range}: ${c.aUs.toFixed(1)} µs vs ${c.bUs.toFixed(1)} µs per call`,
    );
    cell(figure, label, `${c.ratio.toFixed(2)}x`);
  }
}

/**
 * A cold-start row: median of the paired differences `side` (default ours) − hand-written of `key`, and
 * each side's median. Returns the difference, formatted.
 */
function coldRow(section, what, { as, bs }, key, side = 'ours') {
  const diff = median(as.map((a, i) => a[key] - bs[i][key]));
  row(
    section,
    side === 'ours' ? `${what}: ours − hand-written (median of pairs)` : `${what} − hand-written`,
    `${signed(diff)}  (medians: ${side} ${ms(median(as.map((a) => a[key])))}, hand-written ${ms(median(bs.map((b) => b[key])))})`,
  );
  return signed(diff);
}

/**
 * The rows of a step-by-step cold start (cold/steps.js) against the hand-written call: the import as
 * the median of the paired differences of when each side's module starts running, each later step as the
 * median of its own duration (the hand-written call has none of them), and the whole as the median of
 * the paired differences of when the first call is done.
 */
function stepRows(section, { as, bs }, imported, where) {
  const diff = (key) => median(as.map((a, i) => a[key] - bs[i][key]));
  const step = (key) => median(as.map((a) => a.steps[key]));
  row(
    section,
    `${imported}: ours − hand-written module start (median of pairs)`,
    signed(diff('imported')),
  );
  if (where === 'node')
    row(
      section,
      "Node's fetch globals (Response), loaded on first use (the hand-written call pays it too)",
      ms(step('platform')),
    );
  row(
    section,
    'init() resolved: what was left of the compile, and the instance',
    ms(step('ready')),
  );
  row(
    section,
    'the first new PlantStoreClient',
    `${ms(step('construct'))}  (a second one: ${ms(step('second'))})`,
  );
  row(section, 'the first createPlant (in-memory fetch)', ms(step('call')));
  row(
    section,
    'in all, first call done: ours − hand-written (median of pairs)',
    signed(diff('called')),
  );
}

/** A Vite build's files but index.html: their names, bytes, and gzip -9 bytes, each file compressed alone. */
function distBytes(dist) {
  const files = readdirSync(dist, { recursive: true })
    .filter((f) => extname(f) && f !== 'index.html')
    .sort();
  const bytes = files.map((f) => readFileSync(join(dist, f)));
  return {
    files: files.map(
      (f, i) =>
        `${f.replace(/^assets\//, '').replace(/-[\w-]{8}(?=\.)/, '')} ${kb(gzip9(bytes[i]))}`,
    ),
    raw: bytes.reduce((n, b) => n + b.length, 0),
    gzip: bytes.reduce((n, b) => n + gzip9(b), 0),
  };
}

/** A cold-start sample, after checking that its call returned the canned Plant. */
function checked(sample, what) {
  if (sample?.plant?.name !== 'Fern' || sample.plant.tag !== 'green')
    throw new Error(`${what}: returned ${JSON.stringify(sample)}`);
  return sample;
}
