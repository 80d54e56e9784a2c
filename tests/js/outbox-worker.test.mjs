// A service worker that delivers (issue 61): `deliverPlants` of `plant-store-client/outbox/worker`.
// - in Node, on the platform of fakes (support/platform.mjs): the worker a tab with no page life
//   over the same store and Web Locks; what its events' promises say to the browser; a token the
//   worker cannot get; a 429;
// - in headless Chromium, a module service worker against the reference server, with the context
//   offline and every page closed: Background Sync wakes the worker, which sends.
// Every wait is on what a server or the outbox recorded, bounded.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PKG } from './support/server.mjs';
import { origin, plantStore, until } from './support/platform.mjs';

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
