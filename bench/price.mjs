// The price list: what each mechanism of the call costs in bytes and in µs per call. Each variant is
// HEAD with one variant of bench/price/make.py applied (a mechanism removed, or replaced by its plain
// alternative; the edits are applied to HEAD as it is, so none goes stale unseen), built in a scratch
// worktree, and measured side by side with HEAD's own build:
// - size: gzip -9 of index.js (the browser build, the .wasm inside), and of the .wasm alone, against HEAD's;
// - per call, in-memory fetch: the variant's createPlant against HEAD's in the same process, ABBA
//   rounds (bench/overhead.js measureVariant), in Node (bench/price-node.mjs, two processes) and in
//   fresh Chromium pages (the median of PAGES pages); half of the processes and pages import HEAD
//   first, half the variant first, since the order alone moves two identical builds apart;
// - per call, real traffic: calls per second against the reference server on loopback in Node, the
//   variant against HEAD in the same process, ABBA rounds.
// A variant that does less than HEAD (a mechanism stubbed out) is a price, not a build to ship: it
// is never committed to the code, and nothing here is a test.
//   node bench/price.mjs [variant ...]        (default: every variant of make.py)
// PRICE_REUSE=1 keeps the builds already in the scratch directory (PRICE_SCRATCH, /tmp/plant-store-price).
// Builds everything first (niced), then measures; prints one row per variant.
import { execFileSync, execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { gzip9 } from './gzip.mjs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { cpus } from 'node:os';
import { chromium } from 'playwright-core';
import { startServer } from '../tests/js/support/server.mjs';
import { serveStatic } from './static.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BENCH = join(ROOT, 'bench');
const MAKE = join(BENCH, 'price/make.py');
const SCRATCH = process.env.PRICE_SCRATCH ?? '/tmp/plant-store-price';
const PAGES = 4; // even: half of them import HEAD first, half the variant first
// The resolution: HEAD built a second time and measured against HEAD like a variant. How far it lands
// from 1.00x (and from ±0 B) is what the other rows can resolve.
const SAME = 'resolution: HEAD itself';
const run = promisify(execFile);

const wanted = process.argv.slice(2);
const variants = wanted.length
  ? wanted
  : [SAME, ...execFileSync('python3', [MAKE, '--list']).toString().trim().split('\n')];

mkdirSync(SCRATCH, { recursive: true });
const sh = (cmd, args, cwd = ROOT) =>
  execFileSync(cmd, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
    timeout: 900_000,
  }).toString();
const head = sh('git', ['rev-parse', '--short', 'HEAD']).trim();

/** Builds HEAD, or HEAD with the variant `name`, into its worktree's pkg/; returns the pkg dir, or throws why not. */
function build(name) {
  const tree = join(SCRATCH, name.replace(/\W+/g, '-'));
  if (process.env.PRICE_REUSE && existsSync(join(tree, 'pkg/index.js'))) return join(tree, 'pkg');
  if (existsSync(tree)) sh('git', ['worktree', 'remove', '--force', tree]);
  sh('git', ['worktree', 'add', '--detach', tree, 'HEAD']);
  if (name !== 'HEAD' && name !== SAME) sh('python3', [MAKE, '--apply', name, tree]);
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
  const pkg = join(tree, 'pkg');
  execFileSync('nice', ['scripts/build-pkg', pkg], {
    cwd: tree,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 900_000,
    env: { ...process.env, CARGO_TARGET_DIR: join(SCRATCH, 'target') },
  });
  return pkg;
}

function sizes(pkg) {
  const gz = (...files) => gzip9(Buffer.concat(files.map((f) => readFileSync(join(pkg, f)))));
  return {
    browser: gz('index.js'),
    wasm: gz('plant_store_client_bg.wasm'),
  };
}

/**
 * Node: the variant against HEAD, in-memory and against `server` on loopback, in two fresh processes,
 * one importing HEAD first and one the variant first; each figure is the geometric mean of the two.
 */
async function node(base, pkg, server) {
  const runs = [];
  for (const order of ['base-first', 'variant-first']) {
    const { stdout } = await run(
      process.execPath,
      [join(BENCH, 'price-node.mjs'), base, pkg, server.url, order],
      { timeout: 300_000 },
    );
    runs.push(JSON.parse(stdout));
  }
  const geo = (f) => Math.sqrt(f(runs[0]) * f(runs[1]));
  return {
    inMemory: {
      ratio: geo((r) => r.inMemory.ratio),
      aUs: geo((r) => r.inMemory.aUs),
      bUs: geo((r) => r.inMemory.bUs),
    },
    loopback: {
      ratio: geo((r) => r.loopback.ratio),
      variant: geo((r) => r.loopback.variant),
      base: geo((r) => r.loopback.base),
    },
  };
}

/** Chromium: the variant against HEAD in PAGES fresh pages; the medians over the pages. */
async function browserPerCall(browser, base, pkg) {
  const files = await serveStatic({ '/': BENCH, '/base/': base, '/variant/': pkg });
  try {
    const pages = [];
    for (let i = 0; i < PAGES; i++) {
      const page = await browser.newPage();
      await page.goto(`${files.url}/blank.html`);
      pages.push(
        await page.evaluate(
          async (variantFirst) => {
            const first = await import(variantFirst ? '/variant/index.js' : '/base/index.js');
            const second = await import(variantFirst ? '/base/index.js' : '/variant/index.js');
            const [base, variant] = variantFirst ? [second, first] : [first, second];
            const { measureVariant } = await import('/overhead.js');
            return measureVariant(base, variant, { rounds: 16, perRound: 2000 });
          },
          i % 2 === 1,
        ),
      );
      await page.close();
    }
    const med = (f) => {
      const xs = pages.map(f).sort((a, b) => a - b);
      return (xs[(PAGES - 1) >> 1] + xs[PAGES >> 1]) / 2;
    };
    return { ratio: med((p) => p.ratio), aUs: med((p) => p.aUs), bUs: med((p) => p.bUs) };
  } finally {
    await files.stop();
  }
}

const built = {};
for (const name of ['HEAD', ...variants]) {
  console.error(`price: building ${name}`);
  try {
    built[name] = build(name);
  } catch (err) {
    built[name] = new Error(
      String(err.stderr ?? err.message)
        .trim()
        .split('\n')
        .slice(-3)
        .join(' | '),
    );
  }
}
if (built.HEAD instanceof Error) throw built.HEAD;

const server = await startServer();
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
  ],
});
const base = sizes(built.HEAD);
console.log(
  `price list at ${head}: each variant against HEAD's build in the same process (node ${process.version}, ${browser.version()}, nproc ${cpus().length})`,
);
console.log(
  `HEAD: browser build (index.js, the .wasm inside) ${base.browser} B gzip -9, .wasm ${base.wasm} B`,
);
console.log(
  'variant'.padEnd(34),
  '| browser gz Δ | .wasm gz Δ | Node in-memory        | Chromium in-memory    | Node loopback',
);
const signed = (n) => `${n >= 0 ? '+' : '−'}${Math.abs(n)}`;
try {
  for (const name of variants) {
    const pkg = built[name];
    if (pkg instanceof Error) {
      console.log(name.padEnd(34), `| does not build: ${pkg.message}`);
      continue;
    }
    console.error(`price: measuring ${name}`);
    const size = sizes(pkg);
    let n, c;
    try {
      n = await node(built.HEAD, pkg, server);
      c = await browserPerCall(browser, built.HEAD, pkg);
    } catch (err) {
      const why = String(err.stderr || err.message)
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('import'))
        .slice(0, 2)
        .join(' | ');
      console.log(
        name.padEnd(34),
        '|',
        `${signed(size.browser - base.browser)} B`.padStart(12),
        '|',
        `${signed(size.wasm - base.wasm)} B`.padStart(10),
        `| not measured: ${why.slice(0, 200)}`,
      );
      continue;
    }
    const us = (x) => `${x.ratio.toFixed(2)}x ${x.aUs.toFixed(1)}/${x.bUs.toFixed(1)} µs`;
    console.log(
      name.padEnd(34),
      '|',
      `${signed(size.browser - base.browser)} B`.padStart(12),
      '|',
      `${signed(size.wasm - base.wasm)} B`.padStart(10),
      '|',
      us(n.inMemory).padEnd(21),
      '|',
      us(c).padEnd(21),
      '|',
      `${n.loopback.ratio.toFixed(3)}x (${n.loopback.variant.toFixed(0)}/s vs ${n.loopback.base.toFixed(0)}/s)`,
    );
  }
} finally {
  await browser.close();
  await server.stop();
}
