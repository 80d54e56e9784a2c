// The outbox's figures (issues 37 and 43), in headless Chromium against the reference server on loopback,
// as rows for bench.mjs's table:
// - drain: 1,000 entries added while paused, then resumed, the server answering each after 20 ms,
//   concurrency 4 (the bound: 1,000 × 20 ms / 4 = 5 s); beside it, the same 1,000 plain createPlant
//   calls, 4 at a time, in the same page: what the network and the call cost without the outbox;
//   and those calls each after a transaction like a take's: what a durable take per entry costs;
// - 1,000 adds, one after another, while the outbox sends them (issue 51): the median add of the
//   last 100 against the first 100's;
// - open, then one round (a flush with nothing due), with 100 and with 10,000 created entries kept
//   in IndexedDB (written there directly, as the retention keeps them): the median of 5 each.
//   node bench/outbox.mjs [PKG_DIR]   (bench/run prints it with the rest)
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import http from 'node:http';
import { once } from 'node:events';
import { startServer } from '../tests/js/support/server.mjs';
import { launchChromium } from '../tests/js/support/browser.mjs';
import { sendFile } from '../tests/js/support/static.mjs';
import { html } from '../tests/js/support/outbox-page.mjs';

export const TOKEN = 'bench-token-0123';
const SCRIPT = `import * as api from '/pkg/outbox/index.js'; Object.assign(window, api); window.ready = true;`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

// The drain's three steps, run in the page (bench/outbox-profile.mjs profiles the first and the last).
/**
 * 1,000 plain createPlant calls, 4 at a time: how long they took. With `take`, each call comes
 * after a `readwrite` transaction (strict, as the outbox's) that gets and puts one record, as a
 * take does: the floor of a durable take per entry, without the outbox's own work.
 */
export const plainCalls = async ({ base, token, take }) => {
  window.ids ??= { next: Date.now() * 1000 };
  const db = await new Promise((resolve) => {
    const request = indexedDB.open(`floor-${Date.now()}`);
    request.onupgradeneeded = () => request.result.createObjectStore('entries', { keyPath: 'key' });
    request.onsuccess = () => resolve(request.result);
  });
  const taken = (key) =>
    new Promise((resolve) => {
      const tx = db.transaction('entries', 'readwrite', { durability: 'strict' });
      const entries = tx.objectStore('entries');
      entries.get(key).onsuccess = () => entries.put({ key, state: 'sending', at: Date.now() });
      tx.oncomplete = resolve;
    });
  const t = performance.now();
  await Promise.all(
    [0, 1, 2, 3].map(async () => {
      for (let i = 0; i < 250; i++) {
        const id = ids.next++;
        if (take) await taken(String(id));
        await createPlant({ id, name: 'Plain' }, { baseUrl: base, token });
      }
    }),
  );
  db.close();
  return performance.now() - t;
};
/** A paused outbox (`window.outbox`) that 1,000 entries are added to. */
export const queued = async ({ base, token }) => {
  window.ids ??= { next: Date.now() * 1000 };
  window.outbox = await PlantOutbox.open({ baseUrl: base, token, name: `drain-${Date.now()}` });
  outbox.pause();
  await Promise.all(
    Array.from({ length: 1000 }, () => outbox.add({ id: ids.next++, name: 'Queued' })),
  );
};
/** The outbox resumed, until each of its 1,000 entries is created: how long it took. */
export const drained = async () => {
  let created = 0;
  const done = new Promise((resolve) =>
    outbox.addEventListener('change', (e) => {
      if (e.detail.state === 'created' && ++created === 1000) resolve();
    }),
  );
  const t = performance.now();
  outbox.resume();
  await done;
  const ms = performance.now() - t;
  outbox.close();
  return ms;
};

/**
 * 1,000 adds, one after another, into an outbox that sends as they come (issue 51: each add goes
 * into the round under way): how long each add took, until it resolved.
 */
export const addsWhileDraining = async ({ base, token }) => {
  window.ids ??= { next: Date.now() * 1000 };
  const outbox = await PlantOutbox.open({ baseUrl: base, token, name: `adds-${Date.now()}` });
  const took = [];
  for (let i = 0; i < 1000; i++) {
    const t = performance.now();
    await outbox.add({ id: ids.next++, name: 'Added' });
    took.push(performance.now() - t);
  }
  await outbox.flush();
  outbox.close();
  return took;
};

/**
 * `entries()` right after a change, with `count` entries held (added while paused), in Node on
 * fake-indexeddb: the time of each of 50 calls, each after one entry's removal (issue 59: the list
 * is made again only after a change, in the order held, linear in what is held).
 */
export async function entriesAfterChange(pkg, count) {
  const { PlantOutbox } = await import(pathToFileURL(join(pkg, 'outbox/node.mjs')));
  const { origin } = await import('../tests/js/support/platform.mjs');
  const fetch = async () => Response.json({ name: 'Held' });
  const options = { baseUrl: 'https://plants.test', token: TOKEN, fetch, name: `entries-${count}` };
  const outbox = await PlantOutbox.open({ ...options, platform: origin().tab().platform });
  outbox.pause();
  await Promise.all(Array.from({ length: count }, (_, id) => outbox.add({ id, name: 'Held' })));
  const took = [];
  const stop = outbox.subscribe(() => {
    const t = performance.now();
    outbox.entries();
    took.push(performance.now() - t);
  });
  for (const { key } of outbox.entries().slice(0, 50)) await outbox.remove(key);
  stop();
  outbox.close();
  return took;
}

/**
 * Runs `work({ page, server })` in a Chromium page whose module script is `script` (it sets
 * `window.ready`), with the package `pkg` under /pkg/, beside the reference server; then stops them.
 */
export async function inPage(pkg, script, work) {
  const server = await startServer({ token: TOKEN });
  // The page from a server of its own on loopback (not Playwright's routing, which would take every
  // request of the page through the browser's interception, some ms each).
  const pages = http
    .createServer((req, res) => {
      const path = new URL(req.url, 'http://x').pathname;
      if (path === '/')
        return res.writeHead(200, { 'content-type': 'text/html' }).end(html(script));
      sendFile(res, pkg, path.replace(/^\/pkg\//, ''));
    })
    .listen(0, '127.0.0.1');
  await once(pages, 'listening');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${pages.address().port}/`);
    await page.waitForFunction(() => window.ready);
    return await work({ page, server });
  } finally {
    await browser.close();
    pages.close();
    await server.stop();
  }
}

export const outboxRows = (pkg) =>
  inPage(pkg, SCRIPT, async ({ page, server }) => {
    const base = `${server.url}/__test/delay/20`;
    const drain = { plain: await page.evaluate(plainCalls, { base, token: TOKEN }) };
    drain.taken = await page.evaluate(plainCalls, { base, token: TOKEN, take: true });
    await page.evaluate(queued, { base, token: TOKEN });
    drain.drained = await page.evaluate(drained);
    const adds = await page.evaluate(addsWhileDraining, { base, token: TOKEN });
    const [first, last] = [adds.slice(0, 100), adds.slice(-100)];
    const entries = {
      300: await entriesAfterChange(pkg, 300),
      3000: await entriesAfterChange(pkg, 3_000),
    };

    const kept = async (count) =>
      page.evaluate(
        async ({ count, url, token }) => {
          const name = `kept-${count}-${Date.now()}`;
          // The database as the outbox makes it, then `count` created entries written straight in.
          (await PlantOutbox.open({ baseUrl: url, token, name })).close();
          await new Promise((resolve, reject) => {
            const request = indexedDB.open(`plant-store-outbox:${name}`);
            request.onsuccess = () => {
              const tx = request.result.transaction('entries', 'readwrite');
              const now = Date.now();
              for (let i = 0; i < count; i++) {
                tx.objectStore('entries').put({
                  v: 1,
                  key: `kept-${i}`,
                  id: String(i),
                  plant: { id: String(i), name: `Kept ${i}` },
                  idType: 'number',
                  state: 'created',
                  revision: 3,
                  attempts: 1,
                  maybeCreated: false,
                  addedAt: now,
                  updatedAt: now,
                  created: { name: `Kept ${i}` },
                  expiresAt: now + 86_400_000,
                });
              }
              tx.oncomplete = () => {
                request.result.close();
                resolve();
              };
              tx.onerror = () => reject(tx.error);
            };
          });
          const opens = [];
          const rounds = [];
          for (let i = 0; i < 5; i++) {
            let t = performance.now();
            const outbox = await PlantOutbox.open({ baseUrl: url, token, name });
            opens.push(performance.now() - t);
            t = performance.now();
            await outbox.flush();
            rounds.push(performance.now() - t);
            outbox.close();
          }
          return { opens, rounds };
        },
        { count, url: server.url, token: TOKEN },
      );
    const few = await kept(100);
    const many = await kept(10_000);
    const section = 'outbox, Chromium, IndexedDB, reference server on loopback';
    const ratio = (a, b) => `${(median(a) / median(b)).toFixed(2)}x`;
    return [
      [
        section,
        'drain: 1,000 entries, answers after 20 ms, concurrency 4 (bound 5 s)',
        `${s(drain.drained)}; the same 1,000 plain createPlant calls, 4 at a time: ${s(drain.plain)} (${(drain.drained / drain.plain).toFixed(2)}x); those calls each after a take's transaction alone: ${s(drain.taken)} (${(drain.taken / drain.plain).toFixed(2)}x)`,
      ],
      [
        section,
        '1,000 adds while it sends (20 ms, 4 at once): the median add, first 100 / last 100',
        `${median(first).toFixed(2)} ms / ${median(last).toFixed(2)} ms = ${ratio(last, first)}`,
      ],
      [
        section,
        'entries() after a change, 300 / 3,000 entries held, Node on fake-indexeddb (median of 50; linear: 10x)',
        `${median(entries[300]).toFixed(3)} ms / ${median(entries[3000]).toFixed(3)} ms = ${ratio(entries[3000], entries[300])}`,
      ],
      [
        section,
        'open, with 100 / 10,000 created entries kept (median of 5)',
        `${median(few.opens).toFixed(1)} ms / ${median(many.opens).toFixed(1)} ms = ${ratio(many.opens, few.opens)}`,
      ],
      [
        section,
        'one round (flush, nothing due), with 100 / 10,000 kept (median of 5)',
        `${median(few.rounds).toFixed(1)} ms / ${median(many.rounds).toFixed(1)} ms = ${ratio(many.rounds, few.rounds)}`,
      ],
    ];
  });

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pkg = resolve(process.argv[2] ?? fileURLToPath(new URL('../pkg', import.meta.url)));
  for (const [, what, value] of await outboxRows(pkg)) console.log(`${what} | ${value}`);
}
