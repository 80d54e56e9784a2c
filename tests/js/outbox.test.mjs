// The durable outbox (plant-store-client/outbox) in headless Chromium against the reference server,
// which honours Idempotency-Key. The pages are served by Playwright's routing at http://outbox.test/
// (so that a page reloads while the context is offline), the API by the server on loopback (which
// `context.setOffline(true)` cuts off). Every POST the pages send is recorded with its
// Idempotency-Key, so "each plant once" is checked both at the server (its plant and key counts)
// and on the wire.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, PKG } from './support/server.mjs';
import { installWasmSpy } from './support/wasm-memory.mjs';
import { origin } from './support/platform.mjs';
import {
  ORIGIN,
  html,
  startBrowser,
  openIn,
  entries,
  settled,
  until,
} from './support/outbox-page.mjs';

// Tokens of their own, so that any 4-character piece found in IndexedDB can only come from them.
const TOKEN = 'Zq8vR2xK9mW4pL7nHs3D';
const STALE = 'Yt5uB3cN8eJ1hG6dQw2F';

// A sandboxed frame (an opaque origin, where IndexedDB refuses) that opens an outbox.
const SANDBOXED = html(`
  import { PlantOutbox } from '${ORIGIN}/pkg/outbox/index.js';
  PlantOutbox.open({ baseUrl: 'http://127.0.0.1:9', token: 'sandboxed-token', name: 'sandboxed' }).then(
    () => parent.postMessage({ opened: true }, '*'),
    (err) => parent.postMessage({ kind: err.kind, message: err.message }, '*'));`);
const FRAMED = '<iframe sandbox="allow-scripts" src="/sandboxed"></iframe>';

describe('the outbox, in headless Chromium and in Node, against the reference server', {
  timeout: 240_000,
}, () => {
  let server;
  let chromium;
  let tab;
  let context;
  /** Every POST to the server from any page: its plant id and Idempotency-Key. */
  let posts;

  before(async () => {
    server = await startServer({ token: TOKEN });
    chromium = await startBrowser({
      api: server.url,
      pages: { '/sandboxed': SANDBOXED, '/framed': FRAMED },
    });
    ({ tab, context, posts } = chromium);
  });

  after(async () => {
    await chromium?.close();
    await server?.stop();
  });

  /** Opens the outbox `name` in `page` as `window.outbox`, its changes tracked. */
  const open = (page, name, options = {}) =>
    openIn(page, { baseUrl: server.url, token: TOKEN, name, ...options });
  const postsOf = (ids) => posts.filter((p) => ids.includes(p.id));
  const plant = (id) => server.json(`/__test/plants/${id}`);
  /** The plant `id` once the server has stored it (it answers 404 until then). */
  async function stored(id) {
    let response;
    await until(
      async () => {
        response = await fetch(`${server.url}/__test/plants/${id}`);
        return response.ok;
      },
      `the server stores plant ${id}`,
      10_000,
    );
    return response.json();
  }

  it('offline: 20 added, a reload, 20 still pending; online: all 20 created, each once', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => String(1000 + i));
    const before = await server.stats();
    const page = await tab();
    await context.setOffline(true);
    await open(page, 'offline');
    await page.evaluate(
      (ids) => Promise.all(ids.map((id) => outbox.add({ id: Number(id), name: `Offline ${id}` }))),
      ids,
    );
    await page.reload();
    await page.waitForFunction(() => window.ready);
    await open(page, 'offline');
    const kept = await entries(page);
    assert.equal(kept.length, 20, 'the 20 entries survived the reload');
    assert.deepEqual(
      kept.map((e) => String(e.plant.id)),
      ids,
      'in the order they were added',
    );
    assert.ok(
      kept.every((e) => e.state === 'pending' && e.attempts === 0),
      'offline, none was sent',
    );
    assert.equal(postsOf(ids).length, 0);

    await context.setOffline(false); // the `online` event wakes the outbox
    await settled(page, 20);
    const after = await server.stats();
    assert.equal(after.plants - before.plants, 20, 'the server created 20 plants');
    assert.equal(after.keys - before.keys, 20, 'with 20 keys');
    assert.equal(postsOf(ids).length, 20, 'one POST per plant');
    for (const id of ids) assert.equal((await plant(id)).name, `Offline ${id}`);
    const created = await entries(page);
    assert.ok(created.every((e) => e.attempts === 1 && e.created.name === e.plant.name));
    const changes = await page.evaluate(() => changes);
    for (const entry of created) {
      const states = changes.filter((c) => c.key === entry.key).map((c) => c.state);
      assert.deepEqual(states, ['sending', 'created'], `the change events of ${entry.plant.id}`);
    }
    console.log(
      `offline: 20 pending across a reload, then 20 created; server +${after.plants - before.plants} plants, +${after.keys - before.keys} keys, ${postsOf(ids).length} POSTs`,
    );
    await page.close();
  });

  it('two tabs on one outbox: each plant created once', async () => {
    const ids = Array.from({ length: 24 }, (_, i) => String(2000 + i));
    const before = await server.stats();
    const [a, b] = [await tab(), await tab()];
    await context.setOffline(true);
    await open(a, 'two-tabs');
    await open(b, 'two-tabs');
    await a.evaluate(
      (ids) => Promise.all(ids.map((id) => outbox.add({ id: Number(id), name: 'A' }))),
      ids.slice(0, 12),
    );
    await b.evaluate(
      (ids) => Promise.all(ids.map((id) => outbox.add({ id: Number(id), name: 'B' }))),
      ids.slice(12),
    );
    await context.setOffline(false); // both tabs wake at once
    await settled(a, 24);
    await settled(b, 24);
    const after = await server.stats();
    assert.equal(after.plants - before.plants, 24, 'the server created 24 plants');
    const sent = postsOf(ids);
    assert.equal(sent.length, 24, 'one POST per plant, from one tab or the other');
    assert.equal(new Set(sent.map((p) => p.key)).size, 24);
    console.log(
      `two tabs: 24 created; server +${after.plants - before.plants} plants, ${sent.length} POSTs`,
    );
    await a.close();
    await b.close();
  });

  it('the page closed while the server holds the answer: sent again with the same key, one plant', async () => {
    const id = '3000';
    const before = await server.stats();
    // The answer is held longer than any machine takes to close the page; the next page's comes at once.
    let page = await tab();
    await open(page, 'closed', { baseUrl: `${server.url}/__test/hold/60000` });
    await page.evaluate((id) => outbox.add({ id: Number(id), name: 'Closed' }), id);
    assert.equal((await stored(id)).name, 'Closed', 'the server created it, and holds its answer');
    await page.close(); // its answer never comes back to this page

    page = await tab();
    await open(page, 'closed');
    await settled(page, 1);
    const [entry] = await entries(page);
    assert.equal(entry.attempts, 2);
    const sent = postsOf([id]);
    assert.equal(sent.length, 2, 'sent twice');
    assert.equal(sent[1].key, sent[0].key, 'with the same Idempotency-Key');
    assert.equal(entry.key, sent[0].key);
    const after = await server.stats();
    assert.equal(after.plants - before.plants, 1, 'one plant: the server replayed its answer');
    console.log(
      `closed page: 2 POSTs with one key, server +${after.plants - before.plants} plant, entry ${entry.state}`,
    );
    await page.close();
  });

  it('a 400 is rejected with its error and never sent again; a 401 refreshes the token', async () => {
    const taken = '4000';
    const response = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: Number(taken), name: 'First' }),
    });
    assert.equal(response.status, 200);
    const page = await tab();
    await page.evaluate(
      ({ url, token, stale }) => {
        window.asked = [];
        const getToken = ({ refresh }) => {
          asked.push(refresh);
          return refresh ? token : stale;
        };
        return PlantOutbox.open({ baseUrl: url, getToken, name: 'refusals' }).then((o) => {
          window.outbox = o;
          track(o);
        });
      },
      { url: server.url, token: TOKEN, stale: STALE },
    );
    await page.evaluate((id) => outbox.add({ id: Number(id), name: 'Second' }), taken);
    await settled(page, 1, 'rejected');
    const [rejected] = await entries(page);
    assert.equal(rejected.error.kind, 'rejected');
    assert.equal(rejected.error.status, 400);
    assert.equal(typeof rejected.error.code, 'number');
    assert.match(rejected.error.message, /400/);
    assert.equal(rejected.nextAttemptAt, undefined);
    await page.evaluate(() => outbox.flush());
    await page.evaluate(() => outbox.flush());
    assert.equal(postsOf([taken]).length, 2, 'the 400 was sent once (after the 401), never again');
    assert.deepEqual(
      await page.evaluate(() => asked),
      [false, true],
      'the 401 asked getToken for a refresh',
    );
    assert.equal((await entries(page))[0].state, 'rejected');

    await page.evaluate(() => outbox.add({ id: 4001, name: 'Refreshed' }));
    await page.waitForFunction(() =>
      outbox.entries().some((e) => e.plant.id === 4001 && e.state === 'created'),
    );
    assert.equal((await plant('4001')).name, 'Refreshed');
    console.log(
      `refusals: 400 → rejected (${rejected.error.message}); flush twice sent nothing more; getToken asked ${JSON.stringify(await page.evaluate(() => asked))}`,
    );
    await page.close();
  });

  it('1,000 entries drain with bounded concurrency, in bounded memory and time', async () => {
    const page = await context.newPage();
    await page.addInitScript(installWasmSpy);
    await page.goto(`${ORIGIN}/`);
    await page.waitForFunction(() => window.ready);
    const before = await server.stats();
    // A fetch that counts the requests in flight; the server takes 20 ms for each.
    await page.evaluate(
      ({ url, token }) => {
        window.flight = { now: 0, most: 0 };
        const counting = (input, init) => {
          flight.most = Math.max(flight.most, ++flight.now);
          return fetch(input, init).finally(() => flight.now--);
        };
        const options = {
          baseUrl: `${url}/__test/delay/20`,
          token,
          name: 'thousand',
          fetch: counting,
        };
        return PlantOutbox.open(options).then((o) => {
          window.outbox = o;
        });
      },
      { url: server.url, token: TOKEN },
    );
    const added = await page.evaluate(async () => {
      outbox.pause();
      const started = performance.now();
      await Promise.all(
        Array.from({ length: 1000 }, (_, i) => outbox.add({ id: 10_000 + i, name: `Plant ${i}` })),
      );
      return performance.now() - started;
    });
    const drained = await page.evaluate(async () => {
      let created = 0;
      const done = new Promise((resolve) =>
        outbox.addEventListener('change', (e) => {
          if (e.detail.state === 'created' && ++created === 1000) resolve();
        }),
      );
      const started = performance.now();
      outbox.resume();
      await done;
      return performance.now() - started;
    });
    const { most, wasm } = await page.evaluate(() => ({
      most: flight.most,
      wasm: Math.max(...__wasmMemories.map((m) => m.buffer.byteLength)),
    }));
    const session = await context.newCDPSession(page);
    await session.send('HeapProfiler.collectGarbage');
    const { usedSize } = await session.send('Runtime.getHeapUsage');
    const after = await server.stats();
    console.log(
      `1,000 entries: added (paused) in ${(added / 1000).toFixed(1)} s, drained in ${(drained / 1000).toFixed(1)} s; ` +
        `at most ${most} requests in flight; wasm memory ${(wasm / 2 ** 20).toFixed(2)} MiB, JS heap ${(usedSize / 2 ** 20).toFixed(2)} MiB; ` +
        `server +${after.plants - before.plants} plants`,
    );
    assert.equal(after.plants - before.plants, 1000);
    assert.equal(most, 4, 'the default concurrency, reached and never passed');
    assert.ok(drained < 90_000, `drained in ${drained} ms`);
    assert.ok(wasm <= 8 * 2 ** 20, `wasm memory ${wasm} bytes`);
    assert.ok(usedSize <= 64 * 2 ** 20, `JS heap ${usedSize} bytes`);
    await page.close();
  });

  it('IndexedDB missing or refused: a config error at open that names the cause', async () => {
    const page = await tab();
    const missing = await page.evaluate(async () => {
      const idb = Object.getOwnPropertyDescriptor(window, 'indexedDB');
      delete window.indexedDB;
      try {
        await PlantOutbox.open({
          baseUrl: 'http://127.0.0.1:9',
          token: 'missing-token',
          name: 'missing',
        });
        return { opened: true };
      } catch (err) {
        return { kind: err.kind, message: err.message };
      } finally {
        Object.defineProperty(window, 'indexedDB', idb);
      }
    });
    assert.equal(missing.kind, 'config');
    assert.match(missing.message, /no IndexedDB/);
    assert.match(missing.message, /options\.platform/, 'and says to pass a platform');

    const framed = await context.newPage();
    // The frame's answer is kept on the page (a listener there before any script runs) and waited for, bounded.
    await framed.addInitScript(() =>
      addEventListener('message', (e) => {
        window.answer = e.data;
      }),
    );
    framed.on('pageerror', (err) => console.log(`framed page error: ${err}`));
    await framed.goto(`${ORIGIN}/framed`);
    const refused = await (
      await framed.waitForFunction(() => window.answer, null, { timeout: 60_000 })
    ).jsonValue();
    assert.equal(refused.kind, 'config', JSON.stringify(refused));
    assert.match(refused.message, /IndexedDB refused to open: SecurityError/);
    console.log(`missing: ${missing.message}\nrefused: ${refused.message}`);
    await page.close();
    await framed.close();
  });

  it('nothing in IndexedDB holds any piece of a token', async () => {
    const page = await tab();
    const dump = await page.evaluate(async () => {
      const all = {};
      for (const { name } of await indexedDB.databases()) {
        const db = await new Promise((resolve, reject) => {
          const request = indexedDB.open(name);
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
        for (const store of db.objectStoreNames) {
          all[`${name}/${store}`] = await new Promise((resolve) => {
            const request = db.transaction(store).objectStore(store).getAll();
            request.onsuccess = () => resolve(request.result);
          });
        }
        db.close();
      }
      return JSON.stringify(all);
    });
    const records = JSON.parse(dump);
    assert.ok(
      Object.keys(records).includes('plant-store-outbox:refusals/entries'),
      'the suites left their databases',
    );
    assert.ok(dump.length > 100_000, `${dump.length} characters of records`);
    for (const token of [TOKEN, STALE]) {
      for (let i = 0; i + 4 <= token.length; i++) {
        assert.ok(
          !dump.includes(token.slice(i, i + 4)),
          `a piece of a token (${i}) is in IndexedDB`,
        );
      }
    }
    console.log(
      `IndexedDB: ${Object.keys(records).length} object stores, ${dump.length} characters, no 4-character piece of either token`,
    );
    await page.close();
  });

  it("in Node, where there is no IndexedDB: the platform's, here fake-indexeddb's", async () => {
    const { PlantOutbox } = await import(pathToFileURL(join(PKG, 'outbox/node.mjs')));
    const options = { baseUrl: server.url, token: TOKEN, name: 'node' };
    await assert.rejects(PlantOutbox.open(options), {
      kind: 'config',
      message: /no IndexedDB: pass options\.platform/,
    });
    const site = origin();
    const records = () => site.records('node');
    const outbox = await PlantOutbox.open({ ...options, platform: site.tab().platform });
    const seen = [];
    outbox.addEventListener('change', (e) => seen.push(e.detail.state));
    await assert.rejects(outbox.add({ id: 1.5, name: 'x' }), { kind: 'validation' });
    assert.equal((await records()).length, 0, 'an invalid plant stores nothing');
    const added = await Promise.all(
      [5000, 5001, 5002].map((id) => outbox.add({ id: BigInt(id), name: 'Node' })),
    );
    assert.equal((await records()).length, 3, 'each stored before add resolves');
    await outbox.flush();
    assert.deepEqual(
      outbox.entries().map((e) => [e.key, e.state, e.plant.id]),
      added.map((e) => [e.key, 'created', e.plant.id]),
    );
    assert.equal(
      typeof outbox.entries()[0].plant.id,
      'bigint',
      'an id given as a BigInt comes back as one',
    );
    // The views are shared (add, get, entries(), events) and frozen: no app changes what another reads.
    const [first] = outbox.entries();
    assert.equal(await outbox.get(first.key), first);
    for (const view of [first, first.plant, first.created]) assert.ok(Object.isFrozen(view));
    assert.throws(() => {
      first.state = 'pending';
    }, TypeError);
    assert.deepEqual((await records()).map((r) => [r.state, r.plant.id]).sort(), [
      ['created', '5000'],
      ['created', '5001'],
      ['created', '5002'],
    ]);
    // Nothing in IndexedDB holds any piece of the token.
    const dump = JSON.stringify(await records());
    for (let i = 0; i + 4 <= TOKEN.length; i++) {
      assert.ok(!dump.includes(TOKEN.slice(i, i + 4)), `a piece of the token (${i}) is stored`);
    }
    assert.ok(seen.filter((state) => state === 'created').length === 3);
    for (const id of [5000, 5001, 5002]) assert.equal((await plant(String(id))).name, 'Node');
    outbox.close();
  });
});
