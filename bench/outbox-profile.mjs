// Where the outbox's drain spends the page's main thread (issue 43: the drain within 1.10x of the
// same plain calls). bench/outbox.mjs's drain, in headless Chromium against the reference server on
// loopback, with a CPU profile (the DevTools protocol's sampling profiler) of each side: the 1,000
// plain createPlant calls, 4 at a time, then the 1,000 entries of a resumed outbox, concurrency 4.
// The page loads the outbox entry (`outbox/index.js`: the glue and the outbox's JS, minified). Self time is
// summed by what ran: a file of the package, a browser function called from it (fetch, IndexedDB,
// BroadcastChannel), the .wasm, idle. A figure, not a test.   node bench/outbox-profile.mjs [PKG_DIR]
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inPage, TOKEN, plainCalls, queued, drained } from './outbox.mjs';

const SCRIPT = `import * as api from '/pkg/outbox/index.js';
  Object.assign(window, api);
  window.ready = true;`;
/** IndexedDB's functions and getters, as the profiler names them. */
const IDB = new Set([
  'put',
  'get',
  'getAll',
  'delete',
  'transaction',
  'objectStore',
  'index',
  'openCursor',
  'continue',
  'get result',
]);

/** The row a profile node's self time goes to. */
function bucket({ functionName: name, url }) {
  if (!url) {
    if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') return name;
    if (name === 'fetch') return 'fetch (native)';
    if (IDB.has(name)) return 'IndexedDB (native)';
    if (name === 'postMessage') return 'BroadcastChannel (native)';
    return `other native (${name || 'anonymous'})`;
  }
  if (url.endsWith('.wasm')) return 'the .wasm (Rust)';
  // A snippet (`…/snippets/plant-store-client-<hash>/js/outbox/outbox.js`) by its path in the crate.
  return url.includes('/snippets/')
    ? `js/${url.split('/js/').slice(1).join('/js/')}`
    : url.split('/').pop();
}

/** Milliseconds of self time by bucket. */
function spent(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const out = new Map();
  profile.samples.forEach((id, i) => {
    const key = bucket(nodes.get(id).callFrame);
    out.set(key, (out.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return out;
}

export const drainProfile = (pkg) =>
  inPage(pkg, SCRIPT, async ({ page, server }) => {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    const profiled = async (work, arg) => {
      await cdp.send('Profiler.start');
      const ms = await page.evaluate(work, arg);
      const { profile } = await cdp.send('Profiler.stop');
      return { ms, by: spent(profile) };
    };
    const base = `${server.url}/__test/delay/20`;
    const plain = await profiled(plainCalls, { base, token: TOKEN });
    await page.evaluate(queued, { base, token: TOKEN });
    const drain = await profiled(drained);
    return { plain, drain };
  });

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pkg = resolve(process.argv[2] ?? fileURLToPath(new URL('../pkg', import.meta.url)));
  const { plain, drain } = await drainProfile(pkg);
  const ms = (x) => `${x.toFixed(0)} ms`;
  const busy = (side) => side.ms - (side.by.get('(idle)') ?? 0);
  console.log(
    `the drain ${ms(drain.ms)} against the same plain calls ${ms(plain.ms)} (${(drain.ms / plain.ms).toFixed(2)}x);`,
  );
  console.log(
    `the main thread busy ${ms(busy(drain))} against ${ms(busy(plain))}: +${((busy(drain) - busy(plain)) / 1000).toFixed(2)} ms an entry`,
  );
  console.log('\n| self time, ms | plain calls | the drain | difference |\n|---|---|---|---|');
  const keys = [...new Set([...plain.by.keys(), ...drain.by.keys()])].sort(
    (a, b) => (drain.by.get(b) ?? 0) - (drain.by.get(a) ?? 0),
  );
  for (const key of keys) {
    const [p, d] = [plain.by.get(key) ?? 0, drain.by.get(key) ?? 0];
    if (Math.max(p, d) >= 10)
      console.log(
        `| ${key} | ${p.toFixed(0)} | ${d.toFixed(0)} | ${d - p >= 0 ? '+' : ''}${(d - p).toFixed(0)} |`,
      );
  }
}
