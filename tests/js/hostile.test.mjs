// Issue 22: hostile servers (tests/js/support/hostile.mjs) against the packed package, beside the
// broken servers of tests/js/hardening.test.mjs. In Node: compression bombs (gzip, br, deflate) on a
// 200 and on error statuses, an endless chunked body, an oversized one, a body that drips under a
// short timeout, a reset in mid-body, 1xx heads before the answer, the token as the answer, in the
// status text and headers, and the 200 read limit to the byte. Each call is asserted on its kind
// (and status, code), on the time it takes to settle, and on its texts: no 8-character piece of the
// token in message, String(err), stack, JSON.stringify(err), util.inspect(err), or its cause. Then
// two bursts of 50 at once, in Node and in Chromium, after which the wasm memory must be at most
// 8 MiB: 50 of the nastiest mixed, and 50 endless or oversized 200s (the largest read limit).
//
// The package is the tarball the suites install (tests/js/support/tarball.mjs), unpacked; its wasm
// memory is read through WebAssembly wrapped before the import (tests/js/support/wasm-memory.mjs).
//   PKG_TARBALL=artifacts/release/plant-store-client-0.1.0.tgz node --test tests/js/hostile.test.mjs
// HOSTILE_FIGURES_ONLY=1 prints the figures of the bursts without asserting their bound (to measure
// an old package, whose bursts exceed it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPackagePage } from './support/static.mjs';
import { pathToFileURL } from 'node:url';
import { launchChromium } from './support/browser.mjs';
import { tarball } from './support/tarball.mjs';
import { startHostile } from './support/hostile.mjs';
import { installWasmSpy, wasmMemoryBytes } from './support/wasm-memory.mjs';
import { leak as leakOf, pieces as piecesOf } from './support/leaks.mjs';

/** Every 8-character piece of it is searched for in every text of every error. */
const TOKEN = 'Qz8-h0st1le.T0ken_Xw4~pL2';
const MEMORY_MAX = 8 << 20;
const FIGURES_ONLY = process.env.HOSTILE_FIGURES_ONLY === '1';
/** The timeout of the calls that wait on a server that never finishes. */
const SHORT_TIMEOUT_MS = 400;
/**
 * What "settled in bounded time" means: well before the hostile server's own caps (30 s, 256 MiB)
 * would end an answer the client failed to stop. A call takes milliseconds; the bound is that far
 * from it so that no load decides the outcome.
 */
const SETTLED_WITHIN_MS = 20_000;
const PLANT = { id: 22, name: 'Fern', tag: 'x' };

let dir;
let api;
let hostile;

const mib = (bytes) => `${(bytes / (1 << 20)).toFixed(2)} MiB`;
const pieces = piecesOf(TOKEN);

/** The first piece of the token in any text `err` exposes, as `where: piece`; null when none. */
function leak(err) {
  const found = leakOf(err, TOKEN);
  return found && `${found.where}: ${found.piece}`;
}

/**
 * The hostile answers and what the client must make of each: `kind` ('ok' when it resolves),
 * `status`, `code`, `includes` (in the message), `timeoutMs` (the call's).
 * `informational-200/100`'s outcome is the runtime's: Node 20's fetch refuses an unasked-for
 * 100 Continue, so the client must say `network`; where fetch parses it, the Plant.
 */
const CASES = [
  {
    route: 'gzip/200',
    kind: 'invalid_response',
    status: 200,
    includes: 'with a body over',
    hangsUp: true,
  },
  {
    route: 'deflate/200',
    kind: 'invalid_response',
    status: 200,
    includes: 'with a body over',
    hangsUp: true,
  },
  {
    route: 'br/200',
    kind: 'invalid_response',
    status: 200,
    includes: 'with a body over',
    hangsUp: true,
  },
  {
    route: 'gzip/500',
    kind: 'unexpected_status',
    status: 500,
    includes: 'body starting "{"error":1,"message":"Bearer [redacted]',
    hangsUp: true,
  },
  {
    route: 'deflate/400',
    kind: 'invalid_response',
    status: 400,
    includes: 'with a body over 4096 bytes, not read as an Error body',
    hangsUp: true,
  },
  {
    route: 'br/503',
    kind: 'unexpected_status',
    status: 503,
    includes: 'Bearer [redacted]',
    hangsUp: true,
  },
  { route: 'gzip-corrupt/200', kind: 'network' },
  { route: 'gzip-corrupt/500', kind: 'network' },
  {
    route: 'endless/200',
    kind: 'invalid_response',
    status: 200,
    includes: 'with a body over',
    hangsUp: true,
  },
  {
    route: 'endless/503',
    kind: 'unexpected_status',
    status: 503,
    includes: 'body starting "Bearer [redacted]',
    hangsUp: true,
  },
  { route: 'oversized/200', kind: 'invalid_response', status: 200, includes: 'with a body over' },
  { route: 'oversized/500', kind: 'unexpected_status', status: 500, hangsUp: true },
  { route: 'drip/50', kind: 'timeout', timeoutMs: SHORT_TIMEOUT_MS, hangsUp: true },
  { route: 'informational-forever', kind: 'timeout', timeoutMs: SHORT_TIMEOUT_MS, hangsUp: true },
  { route: 'reset/200', kind: 'network' },
  { route: 'reset/400', kind: 'network' },
  { route: 'informational-200', kind: 'ok' },
  { route: 'informational-200/102-103', kind: 'ok' },
  { route: 'informational-400/103', kind: 'rejected', status: 400, code: 3 },
  { route: 'informational-503/102', kind: 'unexpected_status', status: 503, code: 8 },
  { route: 'informational-200/100', kind: 'runtime' },
  { route: 'token/alone', kind: 'invalid_response', status: 200, includes: 'not JSON' },
  { route: 'token/bare', kind: 'invalid_response', status: 200, includes: 'not JSON' },
  { route: 'token/401', kind: 'unauthorized', status: 401, includes: 'body "Bearer [redacted]"' },
  { route: 'token-in-head', kind: 'unexpected_status', status: 500, code: 9 },
  // The 200 read limit to the byte: 6 × the name and tag's bytes + 64 KiB is read, one more is not.
  { route: 'echo-escaped/0', kind: 'ok' },
  {
    route: 'echo-escaped/1',
    kind: 'invalid_response',
    status: 200,
    includes: 'with a body over 65566 bytes',
  },
];

/** One call against `route`: { kind, status, code, message, ms, leak, plant }. */
async function call(route, { baseUrl = hostile.url, timeoutMs = 10_000, id = PLANT.id } = {}) {
  const started = performance.now();
  try {
    const plant = await api.createPlant(
      { ...PLANT, id },
      { baseUrl: `${baseUrl}/${route}`, token: TOKEN, timeoutMs },
    );
    return { kind: 'ok', plant, ms: performance.now() - started, leak: null };
  } catch (err) {
    const ms = performance.now() - started;
    if (!api.PlantStoreError.is(err))
      return { kind: `not a PlantStoreError: ${err}`, ms, leak: leak(err) };
    return {
      kind: err.kind,
      status: err.status,
      code: err.code,
      message: err.message,
      ms,
      leak: leak(err),
    };
  }
}

/** What the runtime's own fetch makes of `route`: 'ok' or 'fails'. */
async function control(route) {
  try {
    const res = await fetch(`${hostile.url}/${route}/plants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, name: PLANT.name }),
    });
    await res.arrayBuffer();
    return 'ok';
  } catch {
    return 'fails';
  }
}

/** What is wrong with result `r` of case `c`; [] when nothing. */
function problems(r, c, expectedKind = c.kind) {
  const out = [];
  if (r.kind !== expectedKind) out.push(`kind ${r.kind} (${r.message}), expected ${expectedKind}`);
  if (expectedKind === 'ok' && r.kind === 'ok' && r.plant?.name !== PLANT.name)
    out.push(`the Plant ${JSON.stringify(r.plant)}`);
  if (c.status !== undefined && r.status !== c.status)
    out.push(`status ${r.status}, expected ${c.status}`);
  if (c.code !== undefined && r.code !== c.code) out.push(`code ${r.code}, expected ${c.code}`);
  if (c.includes && r.kind === c.kind && !r.message.includes(c.includes))
    out.push(`message lacks ${JSON.stringify(c.includes)}: ${r.message.slice(0, 200)}`);
  if (r.ms > SETTLED_WITHIN_MS)
    out.push(`settled in ${Math.round(r.ms)} ms, bound ${SETTLED_WITHIN_MS}`);
  if (r.leak) out.push(`a piece of the token in ${r.leak}`);
  return out;
}

/** The nastiest answers, for the burst of 50 mixed. */
const NASTIEST = [
  'gzip/200',
  'br/200',
  'deflate/200',
  'endless/200',
  'oversized/200',
  'gzip/500',
  'br/503',
  'endless/503',
  'oversized/500',
  'drip/50',
  'reset/200',
  'token/alone',
  'token/401',
  'informational-forever',
  'gzip-corrupt/200',
];
/** The answers of the memory burst: endless or oversized, all 200s (whose read limit is the largest). */
const LARGEST = ['endless/200', 'oversized/200', 'gzip/200', 'br/200', 'deflate/200'];

/** `n` routes taken in turn from `routes`, each on the next of the hostile server's ports. */
const burstOf = (routes, n = 50) =>
  Array.from({ length: n }, (_, i) => ({
    route: routes[i % routes.length],
    port: i % hostile.urls.length,
  }));

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hostile-'));
  execFileSync('tar', ['-xzf', tarball(dir), '-C', dir]);
  installWasmSpy();
  api = await import(pathToFileURL(join(dir, 'package/node.mjs')).href);
  hostile = await startHostile({ ports: 10, tokens: [TOKEN] });
});

after(async () => {
  await hostile?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('each hostile server: its kind, settled in bounded time, no piece of the token, the answer stopped', {
  timeout: 120_000,
}, async () => {
  const failures = [];
  for (const c of CASES) {
    const expected =
      c.kind === 'runtime' ? ((await control(c.route)) === 'ok' ? 'ok' : 'network') : c.kind;
    const from = hostile.log.length;
    const r = await call(c.route, { timeoutMs: c.timeoutMs });
    const what =
      r.kind === 'ok'
        ? 'ok'
        : `${r.kind}${r.status ? ` ${r.status}` : ''}${r.code !== undefined ? ` code ${r.code}` : ''}`;
    console.log(
      `  ${c.route.padEnd(26)} -> ${what} (${Math.round(r.ms)} ms)${r.message ? `: ${r.message.slice(0, 80)}` : ''}`,
    );
    const found = problems(r, c, expected);
    // The server sees the client go: a bomb, an endless or dripping answer is ended by the
    // client, long before its own caps (16 GiB decoded, 256 MiB, 30 s), and no answer is still
    // being sent once the close has reached the server (waited for up to 10 s).
    if (c.hangsUp) {
      const entry = hostile.log.slice(from).find((e) => e.route === c.route);
      for (let i = 0; i < 400 && entry && entry.closedBy === undefined; i++)
        await new Promise((resolve) => setTimeout(resolve, 25));
      if (entry?.closedBy !== 'client')
        found.push(`the server's answer ended by ${entry?.closedBy}, not by the client`);
      else
        console.log(
          `  ${''.padEnd(26)}    the client hung up after ${(entry.sent / 1024).toFixed(1)} KiB sent`,
        );
    }
    if (found.length) failures.push(`${c.route}: ${found.join('; ')}`);
  }
  for (let i = 0; i < 200 && hostile.open().length; i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(
    hostile.open().map((e) => e.route),
    [],
    'answers still being sent 10 s after their calls settled',
  );
  assert.deepEqual(failures, []);
});

/** Runs `burst` at once in Node: the failures, and the memory before and after. */
async function nodeBurst(burst) {
  const before = wasmMemoryBytes();
  const started = performance.now();
  const results = await Promise.all(
    burst.map(({ route, port }, i) =>
      call(route, {
        baseUrl: hostile.urls[port],
        timeoutMs:
          route.startsWith('drip') || route.startsWith('informational-forever')
            ? SHORT_TIMEOUT_MS
            : 10_000,
        id: 1000 + i,
      }),
    ),
  );
  const ms = performance.now() - started;
  const after = wasmMemoryBytes();
  const failures = [];
  for (const [i, r] of results.entries()) {
    const c = CASES.find((x) => x.route === burst[i].route);
    const found = problems(r, c);
    if (found.length) failures.push(`${i} ${burst[i].route}: ${found.join('; ')}`);
  }
  return { before, after, ms, failures };
}

const BURSTS = [
  ['50 of the nastiest at once', NASTIEST],
  ['50 endless or oversized 200s at once', LARGEST],
];

for (const [name, routes] of BURSTS) {
  test(`Node: ${name}, then the wasm memory is at most ${mib(MEMORY_MAX)}`, {
    timeout: 60_000,
  }, async () => {
    // A fresh instance of the package (the module under another URL), so that the figure is this
    // burst's alone: wasm memory never shrinks.
    api = await import(
      `${pathToFileURL(join(dir, 'package/node.mjs')).href}?${encodeURIComponent(name)}`
    );
    const r = await nodeBurst(burstOf(routes));
    console.log(
      `Node, ${name} (${routes.join(', ')}): settled in ${Math.round(r.ms)} ms; wasm memory ${r.before} -> ${r.after} bytes (${mib(r.after)})`,
    );
    const after = await call('echo-escaped/0', { id: 99 });
    assert.equal(after.kind, 'ok', `the call after the burst: ${after.message}`);
    if (!FIGURES_ONLY)
      assert.ok(r.after <= MEMORY_MAX, `wasm memory ${r.after} bytes after the burst`);
    assert.deepEqual(r.failures, []);
  });
}

/** The unpacked package and a page that loads it (its WebAssembly is wrapped by the tab), on loopback. */
const startPage = () =>
  startPackagePage(
    dir,
    `
  import * as api from '/package/index.js';
  globalThis.api = api;
  globalThis.ready = true;`,
  );

let site;
let browser;

for (const [name, routes] of BURSTS) {
  test(`Chromium: ${name}, then the wasm memory is at most ${mib(MEMORY_MAX)}`, {
    timeout: 60_000,
  }, async () => {
    site ??= await startPage();
    browser ??= await launchChromium();
    // A fresh page, so a fresh instance and memory.
    const tab = await browser.newPage();
    const pageErrors = [];
    tab.on('pageerror', (err) => pageErrors.push(String(err)));
    await tab.addInitScript(`(${installWasmSpy})()`);
    await tab.goto(site.url);
    await tab.waitForFunction(() => globalThis.ready === true, null, { timeout: 60_000 });
    const burst = burstOf(routes).map(({ route, port }) => ({ route, url: hostile.urls[port] }));
    const r = await tab.evaluate(
      async ({ burst, token, pieces, plant, shortTimeout }) => {
        const memory = () => globalThis.__wasmMemories.at(-1).buffer.byteLength;
        const before = memory();
        const started = performance.now();
        const results = await Promise.all(
          burst.map(async ({ route, url }, i) => {
            const t = performance.now();
            const timeoutMs =
              route.startsWith('drip') || route.startsWith('informational-forever')
                ? shortTimeout
                : 10_000;
            try {
              const p = await globalThis.api.createPlant(
                { ...plant, id: 2000 + i },
                { baseUrl: `${url}/${route}`, token, timeoutMs },
              );
              return { kind: 'ok', name: p.name, ms: performance.now() - t };
            } catch (err) {
              const texts = [
                err.message,
                String(err),
                err.stack,
                JSON.stringify(err),
                String(err.cause),
                err.cause?.stack,
              ];
              const leak =
                pieces.find((p) => texts.some((text) => String(text).includes(p))) ?? null;
              return {
                kind: err.kind,
                status: err.status,
                code: err.code,
                message: err.message,
                leak,
                ms: performance.now() - t,
              };
            }
          }),
        );
        return {
          before,
          after: memory(),
          memories: globalThis.__wasmMemories.length,
          ms: performance.now() - started,
          results,
        };
      },
      { burst, token: TOKEN, pieces, plant: PLANT, shortTimeout: SHORT_TIMEOUT_MS },
    );
    await tab.close();
    console.log(
      `Chromium, ${name}: settled in ${Math.round(r.ms)} ms; wasm memory ${r.before} -> ${r.after} bytes (${mib(r.after)})`,
    );
    assert.equal(r.memories, 1, 'the page sees the one wasm memory of the package');
    const failures = [];
    for (const [i, res] of r.results.entries()) {
      const c = CASES.find((x) => x.route === burst[i].route);
      const found = problems(
        { ...res, plant: { name: res.name }, leak: res.leak && `a text: ${res.leak}` },
        c,
      );
      if (found.length) failures.push(`${i} ${burst[i].route}: ${found.join('; ')}`);
    }
    if (!FIGURES_ONLY)
      assert.ok(r.after <= MEMORY_MAX, `wasm memory ${r.after} bytes after ${name}`);
    assert.deepEqual(failures, []);
    assert.deepEqual(pageErrors, []);
  });
}

after(async () => {
  await browser?.close();
  site?.stop();
});
