// The outbox through a page's whole life, in Node, on a platform of fakes (support/platform.mjs):
// tabs of one origin sharing an IndexedDB, Web Locks and a channel, each page hidden, shown,
// frozen, resumed, cached or left as the test says, and a Plant Store that answers when the test
// says. The decisions are Rust's (src/outbox/tab.rs, table.rs); these check that the shell does
// them, edge by edge. What only a browser shows stays in the Chromium and WebKit suites.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IDBIndex, IDBObjectStore } from 'fake-indexeddb';
import { PKG } from './support/server.mjs';
import { origin, plantStore, until } from './support/platform.mjs';

const { PlantOutbox } = await import(pathToFileURL(join(PKG, 'outbox/node.mjs')));
const TOKEN = 'life-token-0123';
let n = 0;

/** An outbox of `tab` (a fake page) sending to `store`, named `name` in its origin. */
async function open(tab, store, name, options = {}) {
  const outbox = await PlantOutbox.open({
    baseUrl: 'https://plants.test/api',
    token: TOKEN,
    name,
    platform: tab.platform,
    fetch: store.fetch,
    ...options,
  });
  return outbox;
}

const states = (outbox) => outbox.entries().map((e) => e.state);
const settled = (outbox, count, state = 'created') =>
  until(
    () => outbox.entries().length === count && outbox.entries().every((e) => e.state === state),
    `${count} entries ${state}: ${JSON.stringify(states(outbox))}`,
  );

describe('the outbox through a page’s life, on a platform of fakes', { timeout: 60_000 }, () => {
  it('two tabs of one origin: each plant created once, one round at a time', async () => {
    const [site, store, name] = [origin(), plantStore(), `tabs-${n++}`];
    const [a, b] = [await open(site.tab(), store, name), await open(site.tab(), store, name)];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).add({ id: 100 + i, name: `P${i}` })),
    );
    await Promise.all([a.flush(), b.flush()]);
    await settled(a, 20);
    await settled(b, 20);
    assert.equal(store.requests.length, 20, 'one request a plant');
    a.close();
    b.close();
  });

  it('a tab that hides mid-call lets the call finish and records its answer: one request, and no other tab takes it', async () => {
    const [site, store, name] = [origin(), plantStore({ auto: false }), `hide-${n++}`];
    const tab = site.tab();
    const a = await open(tab, store, name);
    await a.add({ id: 200, name: 'Hidden' });
    const call = await store.next();
    tab.hide(); // the lock goes back at once
    const b = await open(site.tab(), store, name);
    await b.flush(); // b holds the lock now: it takes nothing a live tab sends
    assert.equal(store.requests.length, 1, 'not sent again');
    call.answer();
    await settled(a, 1);
    await settled(b, 1);
    assert.equal(store.requests.length, 1);
    a.close();
    b.close();
  });

  it('a hidden page leaves the sending to the visible tabs for a second; visible again, it sends at once', async () => {
    const [site, store, name] = [origin(), plantStore(), `yield-${n++}`];
    const tab = site.tab();
    const outbox = await open(tab, store, name);
    tab.hide();
    await outbox.add({ id: 210, name: 'Waits' });
    await outbox.flush(); // at once, in the hidden page's second
    assert.deepEqual(states(outbox), ['pending']);
    tab.show();
    await settled(outbox, 1);
    outbox.close();
  });

  it('a hidden page sends on once its second is over', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_800_000_000_000 });
    const [site, store, name] = [origin(), plantStore(), `on-${n++}`];
    const tab = site.tab();
    const outbox = await open(tab, store, name);
    tab.hide();
    await outbox.add({ id: 220, name: 'Later' });
    assert.deepEqual(states(outbox), ['pending']);
    t.mock.timers.tick(1_000);
    await settled(outbox, 1);
    outbox.close();
  });

  it('a tab that freezes mid-call: its call is aborted, another takes the entry with its key, and the frozen tab, back, changes nothing', async () => {
    const [site, store, name] = [origin(), plantStore({ auto: false }), `freeze-${n++}`];
    const tab = site.tab();
    const a = await open(tab, store, name);
    const { key } = await a.add({ id: 230, name: 'Frozen' });
    const first = await store.next();
    tab.freeze();
    assert.ok(first.request.signal.aborted, 'its call aborted');
    const b = await open(site.tab(), store, name);
    const flushed = b.flush();
    const second = await store.next();
    assert.equal(second.request.headers.get('idempotency-key'), `"${key}"`, 'the same key');
    second.answer();
    await flushed;
    const [entry] = b.entries();
    assert.deepEqual([entry.state, entry.attempts], ['created', 2], 'the cut-short send a try');
    tab.resume();
    await settled(a, 1);
    assert.equal(store.requests.length, 2);
    a.close();
    b.close();
  });

  it('a tab that freezes before its request goes out: back, the entry waits again, no try counted', async () => {
    const [site, store, name] = [origin(), plantStore(), `unsent-${n++}`];
    const tab = site.tab();
    let token;
    const asked = new Promise((resolve) => {
      token = resolve;
    });
    let told;
    const a = await open(tab, store, name, {
      token: undefined,
      getToken: () => {
        told?.();
        return asked;
      },
    });
    const asking = new Promise((resolve) => {
      told = resolve;
    });
    await a.add({ id: 240, name: 'Unsent' });
    await asking; // taken, its token awaited: no request yet
    tab.freeze();
    token('life-token-0123');
    tab.resume();
    await until(() => a.entries()[0]?.state !== 'sending', 'written back');
    const [entry] = a.entries();
    assert.equal(store.requests.length, 0, 'nothing was sent while it was frozen');
    assert.equal(entry.attempts, 0, 'no try counted');
    a.close();
  });

  it('a plant added in pagehide is stored, for good or into the back/forward cache', async () => {
    const [site, store, name] = [origin(), plantStore(), `leave-${n++}`];
    for (const persisted of [false, true]) {
      const tab = site.tab();
      const outbox = await open(tab, store, name);
      let added;
      tab.platform.addEventListener('pagehide', () => {
        added = outbox.add({ id: persisted ? 251 : 250, name: 'On leave' });
      });
      tab.pagehide(persisted);
      await added;
      outbox.close();
    }
    const next = await open(site.tab(), store, name);
    await next.flush();
    await settled(next, 2);
    next.close();
  });

  it('150 created entries, a freeze and a resume: every one still listed, none told removed', async () => {
    const [site, store, name] = [origin(), plantStore(), `kept-${n++}`];
    const tab = site.tab();
    const outbox = await open(tab, store, name);
    for (let i = 0; i < 150; i++) await outbox.add({ id: 1_000 + i, name: `P${i}` });
    await outbox.flush();
    await settled(outbox, 150);
    const removed = [];
    outbox.addEventListener('change', (e) => e.detail.removed && removed.push(e.detail.key));
    tab.freeze();
    tab.resume();
    await outbox.flush();
    assert.equal(outbox.entries().length, 150);
    assert.deepEqual(removed, []);
    outbox.close();
  });

  it('a page that leaves while its call is out: the next page takes nothing the old one still sends, and takes what a crashed one left', async () => {
    const [site, store, name] = [origin(), plantStore({ auto: false }), `reload-${n++}`];
    const old = site.tab();
    const a = await open(old, store, name);
    await a.add({ id: 260, name: 'Reloaded' });
    const call = await store.next();
    old.pagehide(false);
    const b = await open(site.tab(), store, name);
    await b.flush();
    assert.equal(store.requests.length, 1, 'the old page still sends it');
    call.answer();
    await settled(b, 1);
    // A page that crashed mid-call: its lock gone, the next page sends what it left, its key kept.
    const crashed = site.tab();
    const c = await open(crashed, store, name);
    const { key } = await c.add({ id: 261, name: 'Crashed' });
    await store.next(); // the crashed page's request, never answered
    crashed.crash();
    const d = await open(site.tab(), store, name);
    const flushed = d.flush();
    const again = await store.next();
    assert.equal(again.request.headers.get('idempotency-key'), `"${key}"`);
    again.answer();
    await flushed;
    assert.deepEqual(
      d.entries().map((e) => [e.plant.id, e.state, e.maybeCreated]),
      [
        [260, 'created', false],
        [261, 'created', false],
      ],
    );
    for (const outbox of [a, b, c, d]) outbox.close();
  });

  it('tabs opened under a test that fixes Math.random still hold one own lock each', async () => {
    const [site, store, name] = [origin(), plantStore(), `fixed-random-${n++}`];
    const random = Math.random;
    Math.random = () => 0.5;
    try {
      const [a, b] = [await open(site.tab(), store, name), await open(site.tab(), store, name)];
      const { held } = await site.locks.of(0).query();
      const own = held.map((lock) => lock.name).filter((lock) => lock.includes('/tab/'));
      assert.equal(new Set(own).size, 2, `two tabs, two ids: ${own}`);
      a.close();
      b.close();
    } finally {
      Math.random = random;
    }
  });

  it('a tab whose own Web Lock is refused is not seen dead: its entry is sent again only once its call has ended', async () => {
    const [site, store, name] = [origin(), plantStore({ auto: false }), `own-lock-${n++}`];
    const tab = site.tab();
    const { locks } = tab.platform.navigator;
    tab.platform.navigator.locks = {
      query: locks.query,
      request: (lock, options, callback) =>
        lock.includes('/tab/')
          ? Promise.reject(new DOMException('the lock was refused', 'InvalidStateError'))
          : locks.request(lock, options, callback),
    };
    const warnings = [];
    const warn = console.warn;
    console.warn = (message) => warnings.push(message);
    try {
      // Its call ends at its timeout, as the client bounds it.
      const a = await open(tab, store, name, { timeoutMs: 500 });
      const { key } = await a.add({ id: 270, name: 'Unseen' });
      const first = await store.next(); // never answered
      tab.hide(); // the lock of rounds goes back at once; the call goes on
      const b = await open(site.tab(), store, name, { timeoutMs: 500 });
      const flushed = b.flush();
      const second = await store.next();
      assert.ok(first.request.signal.aborted, 'sent again only once the first call had ended');
      assert.equal(second.request.headers.get('idempotency-key'), `"${key}"`);
      second.answer();
      await flushed;
      await settled(b, 1);
      assert.ok(
        warnings.some((w) => /Web Lock.*InvalidStateError/.test(w)),
        `the refusal is said: ${warnings.join('\n')}`,
      );
      a.close();
      b.close();
    } finally {
      console.warn = warn;
    }
  });

  it('a subscriber and a change listener that call the outbox as they are told: each call resolves', async () => {
    const [site, store, name] = [origin(), plantStore(), `reentry-${n++}`];
    const outbox = await open(site.tab(), store, name);
    const calls = [];
    const unsubscribe = outbox.subscribe(() => {
      unsubscribe();
      calls.push(outbox.flush());
    });
    outbox.addEventListener('change', () => calls.push(outbox.get('none')), { once: true });
    await outbox.add({ id: 280, name: 'Told' });
    assert.equal(calls.length, 2);
    await Promise.all(calls);
    await settled(outbox, 1);
    outbox.close();
  });

  it('adds while a round sends go into that round: the keys due are read a handful of times, not once an add', async () => {
    const [site, store, name] = [origin(), plantStore(), `burst-${n++}`];
    const outbox = await open(site.tab(), store, name);
    const getAllKeys = IDBIndex.prototype.getAllKeys;
    let reads = 0;
    IDBIndex.prototype.getAllKeys = function (...args) {
      reads++;
      return getAllKeys.apply(this, args);
    };
    try {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => outbox.add({ id: 300 + i, name: `B${i}` })),
      );
      await outbox.flush();
      await settled(outbox, 100);
    } finally {
      IDBIndex.prototype.getAllKeys = getAllKeys;
    }
    assert.ok(reads <= 10, `the keys due read ${reads} times for 100 adds`);
    assert.equal(store.requests.length, 100);
    outbox.close();
  });

  it('a store that fails a round’s write holds up neither the round nor the lock', async () => {
    const [site, store, name] = [origin(), plantStore(), `stuck-${n++}`];
    const outbox = await open(site.tab(), store, name);
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (record, ...rest) {
      if (record?.state === 'sending') throw new DOMException('disk full', 'QuotaExceededError');
      return put.call(this, record, ...rest);
    };
    try {
      await outbox.add({ id: 400, name: 'Stuck' });
      await outbox.flush();
      const rounds = async () =>
        (await site.locks.of(0).query()).held.filter((lock) => !lock.name.includes('/tab/'));
      await until(async () => (await rounds()).length === 0, 'the lock given back');
      assert.deepEqual(states(outbox), ['pending'], 'not taken, nothing sent');
      assert.equal(store.requests.length, 0);
    } finally {
      IDBObjectStore.prototype.put = put;
    }
    await outbox.flush();
    await settled(outbox, 1);
    outbox.close();
  });

  it('without the Web Locks API every tab sends, each entry once; on an IndexedDB of its own, no warning', async () => {
    const [site, store, name] = [origin(), plantStore(), `nolocks-${n++}`];
    const warnings = [];
    const warn = console.warn;
    console.warn = (message) => warnings.push(message);
    try {
      const tabs = [site.tab(), site.tab()];
      for (const tab of tabs) delete tab.platform.navigator.locks;
      const [a, b] = [await open(tabs[0], store, name), await open(tabs[1], store, name)];
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).add({ id: 500 + i, name: `L${i}` })),
      );
      await Promise.all([a.flush(), b.flush()]);
      await settled(a, 10);
      assert.equal(store.requests.length, 10);
      // The warning is for pages on the browser's IndexedDB (tests/js/outbox-edges.test.mjs); an
      // app's tests give their own, as these fakes do.
      assert.deepEqual(warnings, []);
      a.close();
      b.close();
    } finally {
      console.warn = warn;
    }
  });

  it('the retention removes a created entry on its own timer, once its time is over, and tells it', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_800_000_000_000 });
    const [site, store, name] = [origin(), plantStore(), `retention-${n++}`];
    const outbox = await open(site.tab(), store, name, { retentionMs: 100 });
    await outbox.add({ id: 650, name: 'Kept a while' });
    await settled(outbox, 1);
    const removed = [];
    outbox.addEventListener('change', (e) => e.detail.removed && removed.push(e.detail.key));
    t.mock.timers.tick(99);
    await outbox.flush();
    assert.equal(outbox.entries().length, 1, 'kept yet');
    t.mock.timers.tick(1_001);
    await until(() => outbox.entries().length === 0, 'removed on its timer');
    assert.equal(removed.length, 1);
    outbox.close();
  });

  it('close() resolves the flush() calls waiting, and a flush() after it resolves at once', async () => {
    const [site, store, name] = [origin(), plantStore({ auto: false }), `flush-close-${n++}`];
    const outbox = await open(site.tab(), store, name);
    await outbox.add({ id: 650, name: 'Closing' });
    await store.next(); // a round sends it, its answer held
    const waiting = outbox.flush(); // the round after this one
    outbox.close();
    await waiting;
    await outbox.flush();
  });

  it('offline, no round and no timer; online, it sends', async () => {
    const [site, store, name] = [origin(), plantStore(), `offline-${n++}`];
    const tab = site.tab();
    const outbox = await open(tab, store, name);
    tab.offline();
    await outbox.add({ id: 600, name: 'Offline' });
    await outbox.flush();
    assert.deepEqual(states(outbox), ['pending']);
    assert.equal(store.requests.length, 0);
    tab.online();
    await settled(outbox, 1);
    outbox.close();
  });
});

describe('the outbox’s key and what it cannot know, on a platform of fakes', {
  timeout: 60_000,
}, () => {
  it('an answer lost, then the key older than keyLifetimeMs: not sent again with it, uncertain; retry sends a new key', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_800_000_000_000 });
    const [site, store, name] = [origin(), plantStore({ auto: false }), `lifetime-${n++}`];
    const outbox = await open(site.tab(), store, name);
    const { key } = await outbox.add({ id: 700, name: 'Forgotten' });
    (await store.next()).lose();
    await until(() => outbox.entries()[0].state === 'pending', 'it waits');
    t.mock.timers.tick(86_400_001);
    await outbox.flush();
    const [entry] = outbox.entries();
    assert.deepEqual([entry.state, entry.maybeCreated], ['uncertain', true]);
    assert.match(entry.error.message, /older than keyLifetimeMs/);
    assert.equal(store.requests.length, 1, 'not sent again with that key');
    await outbox.retry(key);
    const resent = await store.next();
    assert.notEqual(resent.request.headers.get('idempotency-key'), `"${key}"`, 'a new key');
    resent.answer(); // the store holds the plant: "duplicate id", and the doubt stays
    await until(
      () => outbox.entries()[0].state === 'uncertain' && store.requests.length === 2,
      'uncertain again',
    );
    outbox.close();
  });

  it('a 503 after the store wrote, then "duplicate id": uncertain, maybe created, never rejected', async () => {
    const [site, store, name] = [origin(), plantStore({ auto: false }), `503-${n++}`];
    const outbox = await open(site.tab(), store, name);
    await outbox.add({ id: 710, name: 'Written' });
    (await store.next()).after(503);
    await until(() => outbox.entries()[0].state === 'pending', 'it waits its backoff');
    assert.equal(outbox.entries()[0].maybeCreated, true, 'a 503 may have created it');
    const flushed = outbox.flush();
    (await store.next()).answer(); // the store holds the plant: "duplicate id"
    await flushed;
    const [entry] = outbox.entries();
    assert.deepEqual([entry.state, entry.maybeCreated, entry.error.code], ['uncertain', true, 3]);
    outbox.close();
  });

  it('idempotencyKeyFormat "bare": the key alone, the same bytes on every send', async () => {
    const [site, store, name] = [origin(), plantStore({ auto: false }), `bare-${n++}`];
    const outbox = await open(site.tab(), store, name, { idempotencyKeyFormat: 'bare' });
    const { key } = await outbox.add({ id: 720, name: 'Bare' });
    (await store.next()).lose();
    await until(() => outbox.entries()[0].state === 'pending', 'it waits');
    const flushed = outbox.flush();
    (await store.next()).answer();
    await flushed;
    assert.deepEqual(
      store.requests.map((r) => r.headers.get('idempotency-key')),
      [key, key],
    );
    outbox.close();
  });

  it('retry and markCreated of a record set aside are refused; remove takes it out', async () => {
    const [site, store, name] = [origin(), plantStore(), `aside-${n++}`];
    const tab = site.tab();
    const first = await open(tab, store, name);
    first.close();
    await new Promise((resolve) => {
      const request = site.indexedDB.open(`plant-store-outbox:${name}`);
      request.onsuccess = () => {
        const tx = request.result.transaction('entries', 'readwrite');
        // A newer release's record, with the due time an upgrade gives one it cannot read.
        tx.objectStore('entries').put({ key: 'junk', v: 9, dueAt: 8.64e15 });
        tx.oncomplete = () => resolve(request.result.close());
      };
    });
    const outbox = await open(site.tab(), store, name);
    assert.deepEqual(
      outbox.unreadable().map((u) => u.key),
      ['junk'],
    );
    for (const operation of ['retry', 'markCreated']) {
      await assert.rejects(
        outbox[operation]('junk'),
        (e) => e.kind === 'config' && /cannot read/.test(e.message),
      );
    }
    await outbox.remove('junk');
    assert.deepEqual(outbox.unreadable(), []);
    outbox.close();
  });
});
