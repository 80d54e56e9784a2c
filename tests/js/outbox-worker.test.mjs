// A service worker that delivers (issue 61): `deliverPlants` of `plant-store-client/outbox/worker`.
// - in Node, on the platform of fakes (support/platform.mjs): the worker a tab with no page life
//   over the same store and Web Locks; what its events' promises say to the browser; a token the
//   worker cannot get; a 429;
// - in headless Chromium, a module service worker against the reference server, with the context
//   offline and every page closed: Background Sync wakes the worker, which sends.
// Every wait is on what a server or the outbox recorded, bounded.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { PKG, ROOT, TOKEN as SERVER_TOKEN, startServer } from './support/server.mjs';
import { origin, plantStore, until } from './support/platform.mjs';
import { launchChromium } from './support/browser.mjs';

const { PlantOutbox } = await import(pathToFileURL(join(PKG, 'outbox/node.mjs')));
const { deliverPlants } = await import(pathToFileURL(join(PKG, 'outbox/worker.js')));
const TOKEN = 'worker-token-0123';
let n = 0;

/** The options of the outbox `name`, for a page's or a worker's `platform`, sending to `store`. */
/** One request a call: what a call's failure leaves is the outbox's to decide. */
const options = (platform, store, name, more = {}) => ({
  baseUrl: 'https://plants.test/api',
  token: TOKEN,
  name,
  platform,
  fetch: store.fetch,
  retry: { attempts: 1 },
  ...more,
});

/** A page of `site` that adds `count` plants while offline, and closes: what it leaves waiting. */
async function leftOffline(site, store, name, count) {
  const tab = site.tab();
  tab.offline();
  const outbox = await PlantOutbox.open(options(tab.platform, store, name));
  for (let i = 0; i < count; i++) await outbox.add({ id: 700 + i, name: `Left ${i}` });
  outbox.close();
  return site.records(name);
}

const rejects = (promise) =>
  promise.then(
    () => false,
    () => true,
  );

describe('a service worker that delivers, on a platform of fakes', { timeout: 60_000 }, () => {
  it('a sync event sends what the closed pages left, once each, and its promise resolves', async () => {
    const [site, store, name] = [origin(), plantStore(), `sync-${n++}`];
    await leftOffline(site, store, name, 3);
    const worker = site.worker();
    deliverPlants(options(worker.platform, store, name));
    await worker.fire('sync', { tag: `plant-store-outbox:${name}` });
    assert.deepEqual(store.ids().sort(), [700, 701, 702], 'each sent once');
    const records = await site.records(name);
    assert.deepEqual(
      records.map((r) => r.state),
      ['created', 'created', 'created'],
    );
    await worker.fire('sync', { tag: 'someone-elses-tag' }); // not the outbox's: nothing sent
    assert.equal(store.requests.length, 3);
  });

  it('an add resolves once the page asked its worker to deliver: a page that closes at once leaves the plant to it', async () => {
    const [site, store, name] = [origin(), plantStore(), `asked-${n++}`];
    const tab = site.tab();
    tab.offline();
    const asked = [];
    tab.platform.navigator.serviceWorker = {
      getRegistration: async () => ({
        sync: { register: (tag) => new Promise((registered) => asked.push([tag, registered])) },
      }),
    };
    const outbox = await PlantOutbox.open(options(tab.platform, store, name));
    let added = false;
    const adding = outbox.add({ id: 1, name: 'Fern' }).then(() => {
      added = true;
    });
    const stored = async () => (await site.records(name)).length === 1 && asked.length === 1;
    await until(stored, 'the plant stored and Background Sync asked for');
    assert.equal(added, false, 'not before the sync is registered');
    const [[tag, registered]] = asked;
    assert.equal(tag, `plant-store-outbox:${name}`);
    registered();
    await adding;
    outbox.close();
  });

  it('a registration that never settles holds an add back a second at most; a service worker the page may not use, not at all', async (t) => {
    const [site, store, name] = [origin(), plantStore(), `hung-${n++}`];
    const tab = site.tab();
    tab.offline();
    let asked = 0;
    tab.platform.navigator.serviceWorker = {
      getRegistration: async () => ({
        sync: { register: () => new Promise(() => asked++) },
      }),
    };
    const outbox = await PlantOutbox.open(options(tab.platform, store, name));
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let added = false;
    const adding = outbox.add({ id: 1, name: 'Fern' }).then(() => {
      added = true;
    });
    await until(async () => (await site.records(name)).length === 1 && asked === 1, 'stored');
    assert.equal(added, false);
    t.mock.timers.tick(1000);
    await adding;
    t.mock.timers.reset();
    Object.defineProperty(tab.platform.navigator, 'serviceWorker', {
      get() {
        throw new DOMException('not in this frame', 'SecurityError');
      },
    });
    const second = await outbox.add({ id: 2, name: 'Ivy' });
    assert.equal(second.state, 'pending');
    assert.deepEqual((await site.records(name)).map((r) => r.id).sort(), ['1', '2']);
    outbox.close();
  });

  it('entries still due reject the sync, so that the browser fires it again; its last chance leaves them to the pages', async () => {
    const [site, store, name] = [origin(), plantStore({ auto: false }), `again-${n++}`];
    await leftOffline(site, store, name, 1);
    const worker = site.worker();
    deliverPlants(options(worker.platform, store, name));
    const tag = `plant-store-outbox:${name}`;
    const first = rejects(worker.fire('sync', { tag }));
    (await store.next()).answer(503, { error: 1, message: 'busy' });
    assert.equal(await first, true, 'the 503 left it due: the sync rejects');
    const last = rejects(worker.fire('sync', { tag, lastChance: true }));
    (await store.next()).answer(503, { error: 1, message: 'busy' });
    assert.equal(await last, false, 'its last chance resolves');
    const [record] = await site.records(name);
    assert.equal(record.state, 'pending', 'left to the pages, nothing lost');
    const page = await PlantOutbox.open(options(site.tab().platform, store, name));
    const flushed = page.flush();
    (await store.next()).answer();
    await flushed;
    assert.deepEqual(
      page.entries().map((e) => [e.state, e.attempts]),
      [['created', 3]],
    );
    page.close();
  });

  it('a getToken that fails in the worker leaves the entries to the pages, counting no try', async () => {
    const [site, store, name] = [origin(), plantStore(), `token-${n++}`];
    await leftOffline(site, store, name, 2);
    const worker = site.worker();
    const signedOut = () => Promise.reject(new Error('no session in the worker'));
    deliverPlants(options(worker.platform, store, name, { token: undefined, getToken: signedOut }));
    const tag = `plant-store-outbox:${name}`;
    assert.equal(await rejects(worker.fire('sync', { tag })), true, 'still due');
    assert.equal(store.requests.length, 0);
    const records = await site.records(name);
    assert.deepEqual(
      records.map((r) => [r.state, r.attempts]),
      [
        ['pending', 0],
        ['pending', 0],
      ],
    );
  });

  it('a 429 with Retry-After in the worker waits as in a tab', async () => {
    const [site, store, name] = [origin(), plantStore({ auto: false }), `busy-${n++}`];
    await leftOffline(site, store, name, 1);
    const worker = site.worker();
    deliverPlants(options(worker.platform, store, name));
    const tag = `plant-store-outbox:${name}`;
    const sync = rejects(worker.fire('sync', { tag }));
    const call = await store.next();
    const before = Date.now();
    call.answer(429, { error: 429, message: 'slow down' }, { 'retry-after': '120' });
    assert.equal(await sync, true, 'still due');
    const [record] = await site.records(name);
    assert.deepEqual([record.state, record.attempts], ['pending', 1]);
    assert.ok(record.notBefore >= before + 119_000, `not before the server's 120 s`);
    assert.equal(await rejects(worker.fire('sync', { tag })), true, 'the next sync waits too');
    assert.equal(store.requests.length, 1, 'nothing sent before then');
  });

  it('a page’s message of the tag runs a round too; a worker and a page at once send each plant once', async () => {
    const [site, store, name] = [origin(), plantStore({ auto: false }), `both-${n++}`];
    await leftOffline(site, store, name, 4);
    const worker = site.worker();
    deliverPlants(options(worker.platform, store, name));
    const page = await PlantOutbox.open(options(site.tab().platform, store, name));
    const delivered = worker.fire('message', { data: `plant-store-outbox:${name}` });
    const flushed = page.flush();
    for (let i = 0; i < 4; i++) (await store.next()).answer();
    await Promise.all([delivered, flushed]);
    await until(() => page.entries().every((e) => e.state === 'created'), 'all created');
    assert.deepEqual(store.ids().sort(), [700, 701, 702, 703], 'one request a plant');
    page.close();
  });

  it('an outbox closed on its own (its database deleted) is opened again at the next event', async () => {
    const [site, store, name] = [origin(), plantStore(), `reopen-${n++}`];
    await leftOffline(site, store, name, 1);
    const worker = site.worker();
    deliverPlants(options(worker.platform, store, name));
    const tag = `plant-store-outbox:${name}`;
    await worker.fire('sync', { tag });
    await new Promise((resolve, reject) => {
      const request = site.indexedDB.deleteDatabase(tag); // the worker's outbox closes for it
      request.onsuccess = resolve;
      request.onerror = () => reject(request.error);
    });
    const tab = site.tab();
    tab.offline();
    const page = await PlantOutbox.open(options(tab.platform, store, name));
    await page.add({ id: 710, name: 'After' });
    page.close();
    await worker.fire('sync', { tag });
    assert.deepEqual(store.ids(), [700, 710], 'sent by the outbox opened again');
  });

  it('deliverPlants with a wrong option, or with no events to hear, is a config error', () => {
    const store = plantStore();
    const worker = origin().worker();
    assert.throws(
      () => deliverPlants(options(worker.platform, store, '')),
      (error) => error.kind === 'config' && /name/.test(error.message),
    );
    assert.throws(
      () => deliverPlants({ ...options(undefined, store, 'x') }),
      (error) => error.kind === 'config' && /service worker/.test(error.message),
    );
  });
});

// The app of the Chromium cases, served by the reference server next to its API (one origin, on
// loopback: a secure context): a page with the outbox entry's exports on `window`, and a module
// service worker that delivers, its options in its URL's query.
const SW = `import { deliverPlants } from '/pkg/outbox/worker.js';
const query = new URL(self.location.href).searchParams;
deliverPlants({
  baseUrl: self.location.origin + query.get('path'),
  token: query.get('token'),
  name: query.get('name'),
  retry: { attempts: Number(query.get('attempts')) },
});`;
/**
 * The README's service worker, as written, with what it leaves to the app (its `baseUrl` and
 * `getToken`) read from its URL's query, bundled by esbuild into `file`.
 */
async function readmeWorker(file) {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const recipe = readme
    .slice(readme.indexOf('## Never lose a plant'))
    .match(/```js\n([\s\S]*?)```/)[1];
  const app = `const query = new URL(self.location.href).searchParams;
const baseUrl = self.location.origin + query.get('path');
const getToken = async () => query.get('token');
`;
  const entry = join(PKG, 'outbox/worker.js');
  await build({
    stdin: { contents: app + recipe, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    format: 'esm',
    outfile: file,
    logLevel: 'silent',
    plugins: [
      {
        name: 'the-package-as-built',
        setup: (b) =>
          b.onResolve({ filter: /^plant-store-client\/outbox\/worker$/ }, () => ({ path: entry })),
      },
    ],
  });
}

const PAGE = `<!doctype html><meta charset="utf-8"><script type="module">
import * as api from '/pkg/outbox/index.js';
Object.assign(window, api);
window.ready = true;
</script>`;

describe('a service worker that delivers, in Chromium', { timeout: 300_000 }, () => {
  let server;
  let browser;
  let www;
  let ids = 9000;
  before(async () => {
    www = mkdtempSync(join(tmpdir(), 'plant-store-sw-'));
    writeFileSync(join(www, 'sw.js'), SW);
    writeFileSync(join(www, 'index.html'), PAGE);
    await readmeWorker(join(www, 'readme-sw.js'));
    server = await startServer({ www, pkg: PKG });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(www, { recursive: true, force: true });
  });

  /**
   * A fresh profile of the app (its own storage and service worker) whose worker sends to `path`
   * with `attempts` per call; `hideSync` takes Background Sync away from its pages. Every POST is
   * recorded with its plant id, key, sender (`worker` or `page`), and whether it has ended.
   */
  async function app({ path = '', attempts = 1, hideSync = false, worker = 'sw.js' } = {}) {
    const context = await browser.newContext();
    const name = worker === 'sw.js' ? `sw-${ids}` : 'plants';
    const posts = [];
    context.on('request', (request) => {
      if (request.method() !== 'POST' || !request.url().endsWith('/plants')) return;
      const post = {
        id: JSON.parse(request.postData()).id,
        key: JSON.parse(request.headers()['idempotency-key']),
        by: request.serviceWorker() ? 'worker' : 'page',
        open: true,
        overlapped: false,
      };
      post.overlapped = posts.some((p) => p.open && p.key === post.key);
      posts.push(post);
      const ended = (response) => {
        post.open = false;
        post.status = response?.status?.();
      };
      request.response().then(ended, ended);
    });
    context.on('requestfailed', (request) => {
      for (const post of posts)
        if (post.open && request.postData()?.includes(`${post.id}`)) post.open = false;
    });
    if (hideSync) {
      await context.addInitScript(() => {
        delete ServiceWorkerRegistration.prototype.sync;
        delete globalThis.SyncManager;
      });
    }
    const options = { baseUrl: server.url + path, token: SERVER_TOKEN, name };
    /** A page of the app, its worker registered and active. */
    const page = async () => {
      const tab = await context.newPage();
      await tab.goto(`${server.url}/`);
      await tab.waitForFunction(() => window.ready);
      const query = new URLSearchParams({ path, token: SERVER_TOKEN, name, attempts });
      await tab.evaluate(async (url) => {
        await navigator.serviceWorker.register(url, { type: 'module' });
        await navigator.serviceWorker.ready;
      }, `/${worker}?${query}`);
      return tab;
    };
    /** `count` plants added offline by a page, which closes: their ids. */
    const leaveOffline = async (count) => {
      const tab = await page();
      await context.setOffline(true);
      const added = Array.from({ length: count }, () => ids++);
      await tab.evaluate(
        async ({ options, added }) => {
          const outbox = await PlantOutbox.open(options);
          for (const id of added) await outbox.add({ id, name: `Kept ${id}` });
          outbox.close();
        },
        { options, added },
      );
      await tab.close();
      return added;
    };
    /** DevTools' ServiceWorker domain, from a blank page (no page of the app). */
    const devtools = async () => {
      const cdp = await context.newCDPSession(await context.newPage());
      const registrations = [];
      cdp.on('ServiceWorker.workerRegistrationUpdated', (event) =>
        registrations.push(...event.registrations),
      );
      await cdp.send('ServiceWorker.enable');
      return {
        stop: () => cdp.send('ServiceWorker.stopAllWorkers'),
        /** Fires the outbox's `sync` in the worker, as the browser does when it tries again. */
        sync: () =>
          cdp.send('ServiceWorker.dispatchSyncEvent', {
            origin: server.url,
            registrationId: registrations.find((r) => !r.isDeleted).registrationId,
            tag: `plant-store-outbox:${name}`,
            lastChance: false,
          }),
      };
    };
    /**
     * Until no round of the outbox holds its Web Lock (seen from a page of the origin): the worker's
     * event has ended its round, as it has before the browser fires the next one.
     */
    const roundEnded = async () => {
      const tab = await context.newPage();
      await tab.goto(`${server.url}/`);
      const lock = `plant-store-outbox:${name}`;
      const free = () =>
        tab.evaluate(async (lock) => {
          const { held } = await navigator.locks.query();
          return !held.some((it) => it.name === lock);
        }, lock);
      await until(free, 'the worker’s round ended');
      await tab.close();
    };
    return { context, posts, options, page, leaveOffline, devtools, roundEnded };
  }

  /**
   * Each of `added` stored by the server, once (the server keeps one plant an id), and its 200 seen
   * among `posts` (the browser's events may come after the server's).
   */
  const stored = async (added, posts) => {
    await Promise.all(added.map((id) => server.stored(id)));
    const seen = () => added.every((id) => posts.some((p) => p.id === id && p.status === 200));
    await until(seen, 'a 200 for each plant, seen by the browser');
  };
  const keysOf = (posts) => new Map(posts.map((p) => [p.id, p.key]));

  it('offline: adds, every page closed, online: each created once, by the worker', async () => {
    const { context, posts, leaveOffline } = await app();
    const added = await leaveOffline(3);
    await context.setOffline(false); // no page open: Background Sync wakes the worker
    await stored(added, posts);
    assert.deepEqual(
      posts.map((p) => [p.id, p.by]),
      added.map((id) => [id, 'worker']),
    );
    assert.equal(keysOf(posts).size, 3, 'one key a plant');
    await context.close();
  });

  it('the README’s service worker, as written (bundled by esbuild), delivers with every page closed', async () => {
    const { context, posts, leaveOffline } = await app({ worker: 'readme-sw.js' });
    const added = await leaveOffline(2);
    await context.setOffline(false);
    await stored(added, posts);
    assert.deepEqual(
      posts.map((p) => [p.id, p.by]),
      added.map((id) => [id, 'worker']),
    );
    await context.close();
  });

  it('a page and the worker both sending: each created once, one key an id, never one key twice at once', async () => {
    const { context, posts, options, page } = await app({ path: '/__test/delay/200' });
    const tab = await page();
    await context.setOffline(true);
    const added = Array.from({ length: 8 }, () => ids++);
    await tab.evaluate(
      async ({ options, added }) => {
        window.outbox = await PlantOutbox.open({ ...options, concurrency: 1 });
        for (const id of added) await outbox.add({ id, name: `Both ${id}` });
      },
      { options, added },
    );
    await context.setOffline(false); // the page's round and the worker's sync at once
    await until(() => posts.length > 0, 'a first request');
    // The page hides mid-round: it gives the lock back, its call finishes, the worker goes on.
    await tab.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await stored(added, posts);
    for (const id of added) {
      const keys = new Set(posts.filter((p) => p.id === id).map((p) => p.key));
      assert.equal(keys.size, 1, `one key for ${id}`);
    }
    assert.ok(!posts.some((p) => p.overlapped), 'never two requests of one key at once');
    assert.deepEqual(new Set(posts.map((p) => p.by)), new Set(['page', 'worker']), 'both sent');
    const stats = await server.stats();
    assert.ok(stats.plants >= added.length);
    await context.close();
  });

  it('the worker stopped mid-send: the resend carries the same key, created once', async () => {
    const { context, posts, leaveOffline, devtools } = await app({ path: '/__test/hold/2000' });
    const [id] = await leaveOffline(1);
    const tools = await devtools();
    await context.setOffline(false);
    await until(() => posts.length === 1, 'the worker’s request'); // created, its answer held
    await tools.stop(); // as the browser ends a worker whose event ran too long
    await tools.sync(); // the browser's next sync starts it again
    await until(() => posts.length === 2, 'the resend');
    await stored([id], posts);
    assert.deepEqual(
      posts.map((p) => [p.id, p.key, p.by]),
      [
        [id, posts[0].key, 'worker'],
        [id, posts[0].key, 'worker'],
      ],
    );
    await context.close();
  });

  it('a 503, then silence: the browser’s next sync sends it, created once', async () => {
    const { context, posts, leaveOffline, devtools, roundEnded } = await app({
      path: '/__test/script/503,ok',
    });
    const [id] = await leaveOffline(1);
    const tools = await devtools();
    await context.setOffline(false);
    await until(() => posts.length === 1 && !posts[0].open, 'the 503');
    // A sync fired while the round that met the 503 still runs joins it, and sends nothing again
    // before the backoff; the browser fires one sync of a tag at a time.
    await roundEnded();
    await tools.sync();
    await stored([id], posts);
    assert.deepEqual(
      posts.map((p) => [p.key, p.by]),
      [
        [posts[0].key, 'worker'],
        [posts[0].key, 'worker'],
      ],
    );
    await context.close();
  });

  it('no Background Sync (the API hidden): the pages deliver as before', async () => {
    const { context, posts, options, page, leaveOffline } = await app({ hideSync: true });
    const added = await leaveOffline(2);
    await context.setOffline(false);
    const tab = await page();
    await tab.evaluate(async (options) => {
      window.outbox = await PlantOutbox.open(options);
    }, options);
    await stored(added, posts);
    assert.deepEqual(
      posts.map((p) => [p.id, p.by]),
      added.map((id) => [id, 'page']),
    );
    await context.close();
  });
});
