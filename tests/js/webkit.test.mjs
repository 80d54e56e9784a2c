// Safari's engine: the built package in WebKitGTK's MiniBrowser, driven through WebKitWebDriver
// (tests/js/support/webkit.mjs; scripts/setup-webkit installs both), against the reference server
// on loopback. One plain createPlant, and the outbox's three main cases of tests/js/outbox.test.mjs
// (Chromium): offline across a reload, two tabs, a page closed mid-request. WebKitGTK cannot be set
// offline, so the pages reach the server through a proxy of the suite's (support/proxy.mjs) that it
// cuts and restores; the proxy also records each POST with its Idempotency-Key, so "each plant once"
// is checked at the server (its plant and key counts) and on the wire.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { launchWebKit } from './support/webkit.mjs';
import { startProxy } from './support/proxy.mjs';
import { startServer, PKG } from './support/server.mjs';
import { sendFile } from './support/static.mjs';

const TOKEN = 'Wk4tP9sL2vQ7xN3cRb8M';

// A page of the package's entry `entry`: its exports on `window`, `track(outbox)` keeps an outbox's
// change events in `window.changes`, `window.pageErrors` collects what the page threw (WebDriver
// reports none of it), and `window.shown` whether it came back from the back/forward cache.
const page = (entry) => `<!doctype html><meta charset="utf-8"><script>
  window.pageErrors = [];
  addEventListener('error', (e) => pageErrors.push(String(e.message)));
  addEventListener('unhandledrejection', (e) => pageErrors.push(String(e.reason)));
  addEventListener('pageshow', (e) => { window.shown = e.persisted; });
</script><script type="module">
  import * as api from '/pkg/${entry}';
  Object.assign(window, api);
  window.changes = [];
  window.track = (outbox) => outbox.addEventListener('change', (e) => changes.push(e.detail));
  window.ready = true;
</script>`;
const PAGES = { '/': page('outbox/index.js'), '/plain': page('index.js') };

describe('WebKit (WebKitGTK MiniBrowser): createPlant and the outbox against the reference server', {
  timeout: 600_000,
}, () => {
  let server;
  let proxy;
  let pages;
  let webkit;
  let session;

  before(async () => {
    server = await startServer({ token: TOKEN });
    proxy = await startProxy(server.url);
    pages = http.createServer((req, res) => {
      const path = new URL(req.url, 'http://x').pathname;
      if (PAGES[path]) return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGES[path]);
      if (!path.startsWith('/pkg/')) return res.writeHead(404).end();
      sendFile(res, PKG, path.slice('/pkg/'.length));
    });
    pages.listen(0, '127.0.0.1');
    await once(pages, 'listening');
    pages.url = `http://127.0.0.1:${pages.address().port}`;
    webkit = await launchWebKit();
    session = await webkit.newSession();
  });

  after(async () => {
    await webkit?.stop();
    pages?.close();
    await proxy?.stop();
    await server?.stop();
  });

  /** Loads the page at `path` in the session's current window; resolves once its module ran. */
  async function load(path = '/') {
    await session.navigate(pages.url + path);
    await waitFor(() => window.ready, 'the page loaded the package');
  }

  /**
   * Resolves with what `predicate` (run in the page, with `args`) returns once that is truthy; checked
   * every 50 ms for up to 60 s, then fails with `what`, the page's errors and its outbox's entries.
   */
  function waitFor(predicate, what, ...args) {
    return session.run(
      async (predicate, what, args) => {
        const check = new Function('args', `return (${predicate})(...args)`);
        const deadline = Date.now() + 60_000;
        for (; ; await new Promise((resolve) => setTimeout(resolve, 50))) {
          const value = check(args);
          if (value) return value;
          if (Date.now() > deadline) {
            const entries = window.outbox
              ?.entries()
              .map((e) => `${e.plant.id} ${e.state} ${e.attempts} ${e.error?.message ?? ''}`);
            throw new Error(
              `${what}: not within 60 s; page errors: ${pageErrors.join('; ')}; entries: ${entries?.join(', ')}`,
            );
          }
        }
      },
      String(predicate),
      what,
      args,
    );
  }

  /** Opens the outbox `name` in the current window as `window.outbox`, through the proxy, its changes tracked. */
  function open(name, options = {}) {
    return session.run(
      async (url, token, name, options) => {
        window.outbox = await PlantOutbox.open({ baseUrl: url, token, name, ...options });
        track(outbox);
      },
      proxy.url,
      TOKEN,
      name,
      options,
    );
  }

  /** Adds a plant named `name` for each of `ids` to the current window's outbox; resolves once all are stored. */
  const add = (ids, name) =>
    session.run(
      (ids, name) =>
        Promise.all(ids.map((id) => outbox.add({ id: Number(id), name }))).then(() => {}),
      ids,
      name,
    );
  const entries = () => session.run(() => outbox.entries());
  /** Waits until the current window's outbox holds `count` entries, each in `state`; resolves with them. */
  const settled = (count, state = 'created') =>
    waitFor(
      (count, state) => {
        const all = outbox.entries();
        return all.length === count && all.every((e) => e.state === state) && all;
      },
      `${count} entries ${state}`,
      count,
      state,
    );
  const postsOf = (ids) => proxy.posts.filter((p) => ids.includes(p.id));
  const plant = (id) => server.json(`/__test/plants/${id}`);

  it('createPlant: the Plant back; the same id again, a rejected 400 as a PlantStoreError', async () => {
    await load('/plain');
    const before = await server.stats();
    const { created, refused } = await session.run(
      async (url, token) => {
        const created = await createPlant(
          { id: 7000, name: 'Safari', tag: 'webkit' },
          { baseUrl: url, token },
        );
        try {
          await createPlant({ id: 7000, name: 'Again' }, { baseUrl: url, token });
          return { created };
        } catch (err) {
          const { name, kind, status, code, message, attempts, maybeCreated } = err;
          return {
            created,
            refused: {
              instance: err instanceof PlantStoreError,
              name,
              kind,
              status,
              code,
              message,
              attempts,
              maybeCreated,
            },
          };
        }
      },
      proxy.url,
      TOKEN,
    );
    assert.deepEqual(created, { name: 'Safari', tag: 'webkit' });
    assert.ok(refused, 'the second call was refused');
    assert.equal(refused.instance, true, 'instanceof PlantStoreError');
    assert.equal(refused.name, 'PlantStoreError');
    assert.equal(refused.kind, 'rejected');
    assert.equal(refused.status, 400);
    assert.equal(typeof refused.code, 'number');
    assert.equal(refused.attempts, 1);
    assert.equal(refused.maybeCreated, false);
    assert.deepEqual(
      await plant('7000'),
      { id: '7000', name: 'Safari', tag: 'webkit' },
      'the server kept the first',
    );
    assert.equal((await server.stats()).plants - before.plants, 1);
    assert.equal(postsOf(['7000']).length, 2);
    console.log(
      `createPlant: ${JSON.stringify(created)}; again: ${refused.kind} ${refused.status} (${refused.message})`,
    );
  });

  it('offline: 20 added, a reload, 20 still pending; back online: all 20 created, each once', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => String(1000 + i));
    const before = await server.stats();
    await load();
    proxy.cut();
    await open('offline');
    await add(ids, 'Offline');
    await session.refresh();
    await waitFor(() => window.ready, 'the page reloaded');
    await open('offline');
    // The page is online: the reopened outbox sends at once, into the cut, and each entry goes back to
    // `pending` with the network error (each tried, before the reload or after it).
    const kept = await waitFor(() => {
      const all = outbox.entries();
      return all.length === 20 && all.every((e) => e.state === 'pending' && e.attempts > 0) && all;
    }, '20 entries pending, each tried');
    assert.deepEqual(
      kept.map((e) => String(e.plant.id)),
      ids,
      'the 20 entries survived the reload, in the order they were added',
    );
    for (const e of kept) assert.equal(e.error.kind, 'network', JSON.stringify(e));
    assert.equal((await server.stats()).plants, before.plants, 'nothing reached the server');
    assert.equal(postsOf(ids).length, 0);
    assert.ok(proxy.refused > 0, 'the outbox tried, and the proxy refused it');
    const tried = kept.reduce((sum, e) => sum + e.attempts, 0);

    proxy.restore();
    await session.run(() => outbox.flush());
    await settled(20);
    const after = await server.stats();
    assert.equal(after.plants - before.plants, 20, 'the server created 20 plants');
    assert.equal(after.keys - before.keys, 20, 'with 20 keys');
    const sent = postsOf(ids);
    assert.equal(sent.length, 20, 'one POST per plant');
    assert.equal(new Set(sent.map((p) => p.key)).size, 20);
    for (const id of ids) assert.equal((await plant(id)).name, 'Offline');
    const created = await entries();
    assert.ok(created.every((e) => e.created.name === 'Offline' && !e.maybeCreated));
    const changes = await session.run(() => changes);
    for (const entry of created) {
      const states = changes.filter((c) => c.key === entry.key).map((c) => c.state);
      assert.equal(states.at(-1), 'created', `the last change event of ${entry.plant.id}`);
    }
    console.log(
      `offline: 20 pending across a reload (${tried} attempts refused at the cut proxy, ${proxy.refused} connections), ` +
        `then 20 created; server +${after.plants - before.plants} plants, +${after.keys - before.keys} keys, ${sent.length} POSTs`,
    );
    await session.run(() => outbox.close());
  });

  it('two tabs on one outbox: entries added in both, each plant created once', async () => {
    const ids = Array.from({ length: 24 }, (_, i) => String(2000 + i));
    const before = await server.stats();
    const a = await session.window();
    const b = await session.newWindow();
    await load();
    proxy.cut();
    await open('two-tabs');
    await session.switchTo(b);
    await load();
    await open('two-tabs');
    await add(ids.slice(12), 'B');
    await session.switchTo(a);
    await add(ids.slice(0, 12), 'A');
    proxy.restore();
    // Both tabs asked to send at once; the outbox lets one of them send.
    for (const tab of [a, b]) {
      await session.switchTo(tab);
      await session.run(() => {
        outbox.flush().catch((err) => pageErrors.push(`flush: ${err}`));
      });
    }
    for (const tab of [a, b]) {
      await session.switchTo(tab);
      await settled(24);
    }
    const after = await server.stats();
    assert.equal(after.plants - before.plants, 24, 'the server created 24 plants');
    const sent = postsOf(ids);
    assert.equal(sent.length, 24, 'one POST per plant, from one tab or the other');
    assert.equal(new Set(sent.map((p) => p.key)).size, 24);
    for (const [i, id] of ids.entries()) assert.equal((await plant(id)).name, i < 12 ? 'A' : 'B');
    const locks = await session.run(() => typeof navigator.locks === 'object');
    console.log(
      `two tabs (Web Locks ${locks ? 'present' : 'absent'}): 24 created; server +${after.plants - before.plants} plants, ${sent.length} POSTs`,
    );
    await session.switchTo(b);
    await session.closeWindow();
    await session.switchTo(a);
    await session.run(() => outbox.close());
  });

  it('the page closed while the server holds the answer: sent again with the same key, one plant', async () => {
    const id = '3000';
    const before = await server.stats();
    // Held far longer than any machine takes to close the page; the next page's is answered at once.
    const second = await session.newWindow();
    await load();
    await open('closed', { baseUrl: `${proxy.url}/__test/hold/60000` });
    await session.run((id) => {
      outbox.add({ id: Number(id), name: 'Closed' });
    }, id);
    assert.equal(
      (await server.stored(id)).name,
      'Closed',
      'the server created it, and holds its answer',
    );
    await session.closeWindow(); // its answer never comes back to this page
    assert.equal(postsOf([id]).length, 1);

    await session.switchTo(second);
    await load();
    await open('closed');
    const [entry] = await settled(1);
    assert.equal(entry.attempts, 2);
    const sent = postsOf([id]);
    assert.equal(sent.length, 2, 'sent twice');
    assert.equal(sent[1].key, sent[0].key, 'with the same Idempotency-Key');
    assert.equal(entry.key, sent[0].key);
    const after = await server.stats();
    assert.equal(after.plants - before.plants, 1, 'one plant: the server replayed its answer');
    assert.equal(after.keys - before.keys, 1);
    console.log(
      `closed page: 2 POSTs with one key, server +${after.plants - before.plants} plant, entry ${entry.state}`,
    );
    await session.run(() => outbox.close());
  });

  it('the sending page goes into the back/forward cache: another page takes over at once, and the page, back, sends nothing without the lock', async () => {
    const id = '4000';
    const before = await server.stats();
    const cached = await session.window();
    const other = await session.newWindow();
    await load();
    await open('cached', { baseUrl: `${proxy.url}/__test/hold/60000` }); // its answer comes long after it left
    await session.run((id) => {
      outbox.add({ id: Number(id), name: 'Cached' });
    }, id);
    assert.equal(
      (await server.stored(id)).name,
      'Cached',
      'the server created it, and holds its answer',
    );
    await session.navigate(`${pages.url}/plain`); // a link followed mid-send: WebKit keeps the page in its cache

    await session.switchTo(other);
    await load();
    await open('cached'); // its IndexedDB answers: the cached page left no transaction open
    const [entry] = await settled(1);
    const sent = postsOf([id]);
    assert.deepEqual(
      [sent.length, new Set(sent.map((p) => p.key)).size, entry.attempts],
      [2, 1, 2],
      'sent again at once, with its key',
    );

    await session.switchTo(cached);
    await session.back();
    await waitFor(() => window.ready, 'the page is back');
    const persisted = await session.run(() => window.shown === true);
    if (persisted) {
      // It reads the store again, and holds the lock before it would send anything.
      await waitFor(
        () => outbox.entries()[0]?.state === 'created',
        'the page back sees its entry created',
      );
      await session.run(() => outbox.flush());
    }
    assert.equal(postsOf([id]).length, 2, 'the page back sent nothing more');
    assert.deepEqual(await session.run(() => pageErrors), []);
    const after = await server.stats();
    assert.equal(after.plants - before.plants, 1, 'one plant');
    console.log(
      `back/forward cache (${persisted ? 'the page came back from it' : 'the page was loaded again'}): 2 POSTs with one key, one plant`,
    );
    if (persisted) await session.run(() => outbox.close());
    await session.switchTo(other);
    await session.run(() => outbox.close());
    await session.closeWindow();
    await session.switchTo(cached);
  });
});
