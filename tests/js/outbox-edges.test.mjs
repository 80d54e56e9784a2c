// The outbox at its edges (issue 37), each case named after the edge it holds:
// - in Node, on a platform of fakes (support/platform.mjs: fake-indexeddb, its requests made to
//   fail where a case says so), against the scripted store of support/scripted.mjs (which does not
//   honour Idempotency-Key, so a resend after a lost answer meets "duplicate id");
// - in headless Chromium, with IndexedDB, against the reference server: the hand-over between tabs,
//   a removal racing a send, a newer page upgrading the database, a server whose CORS forgets
//   Idempotency-Key, and a page that loads both builds.
// Every wait is on what a server or the outbox recorded, bounded.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { once } from 'node:events';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IDBDatabase, IDBIndex, IDBObjectStore } from 'fake-indexeddb';
import { startServer, PKG } from './support/server.mjs';
import { startScripted } from './support/scripted.mjs';
import { sendFile } from './support/static.mjs';
import { origin } from './support/platform.mjs';
import {
  ORIGIN,
  html,
  startBrowser,
  openIn,
  entries,
  settled,
  until,
  withoutWebLocks,
} from './support/outbox-page.mjs';

const TOKEN = 'edge-token-0123';

/** Replaces `object[name]` with `make(original)` until the returned function puts it back. */
function patch(object, name, make) {
  const original = object[name];
  object[name] = make(original);
  return () => {
    object[name] = original;
  };
}

/** Puts `records` as they are in the database of the outbox `name` of `site`. */
function put(site, name, records) {
  return new Promise((resolve, reject) => {
    const request = site.indexedDB.open(`plant-store-outbox:${name}`);
    request.onerror = () => reject(request.error);
    request.onsuccess = () => {
      const tx = request.result.transaction('entries', 'readwrite');
      for (const record of records) tx.objectStore('entries').put(record);
      tx.oncomplete = () => resolve(request.result.close());
      tx.onabort = () => reject(tx.error);
    };
  });
}

describe('the outbox at its edges, in Node on fake-indexeddb', { timeout: 120_000 }, () => {
  let scripted;
  let api;
  let PlantStoreError;

  before(async () => {
    scripted = await startScripted({ token: TOKEN });
    api = await import(pathToFileURL(join(PKG, 'outbox/node.mjs')));
    ({ PlantStoreError } = await import(pathToFileURL(join(PKG, 'node.mjs'))));
  });
  after(() => scripted?.stop());

  let n = 0;
  /**
   * An outbox on a tab (`tab`) of `site` (default: an origin of its own), its requests scripted by
   * `steps`, its changes kept; `records()` reads what its database holds.
   */
  async function outboxOf(steps, { site = origin(), name = `edges-${n++}`, ...options } = {}) {
    const tab = site.tab();
    const outbox = await api.PlantOutbox.open({
      baseUrl: `${scripted.url}/s/${steps}`,
      token: TOKEN,
      name,
      platform: tab.platform,
      ...options,
    });
    const changes = [];
    outbox.addEventListener('change', (e) => changes.push(e.detail));
    return { outbox, tab, changes, records: () => site.records(name) };
  }
  /** An origin whose outbox `name` holds `records`, put in its database as they are. */
  async function seeded(records) {
    const [site, name] = [origin(), `edges-${n++}`];
    (await outboxOf('ok', { site, name })).outbox.close();
    await put(site, name, records);
    return { site, name };
  }
  const only = (outbox) => {
    const all = outbox.entries();
    assert.equal(all.length, 1, JSON.stringify(all));
    return all[0];
  };

  it('a 429 with Retry-After: 2 sets the next attempt no earlier than asked, retries off', async () => {
    const { outbox } = await outboxOf('429s2,ok');
    const id = 9100;
    const before = Date.now();
    await outbox.add({ id, name: 'Busy' });
    await outbox.flush();
    const waiting = only(outbox);
    assert.equal(waiting.state, 'pending');
    assert.equal(waiting.error.status, 429);
    assert.ok(
      waiting.nextAttemptAt >= before + 2_000,
      `next attempt ${waiting.nextAttemptAt - before} ms after the add`,
    );
    // Its timer sends it then: the store saw the second request 2 s or more after the first.
    await until(() => only(outbox).state === 'created', 'created after the wait', 30_000);
    const [first, second] = scripted.requests(id);
    assert.ok(
      second.at - first.at >= 1_990,
      `sent again ${Math.round(second.at - first.at)} ms later`,
    );
    console.log(
      `Retry-After 2: next attempt ${waiting.nextAttemptAt - before} ms after the add; sent again ${Math.round(second.at - first.at)} ms later`,
    );
    outbox.close();
  });

  it('a lost answer, then "duplicate id" on the client\'s retry: uncertain, maybe created, 2 requests; the app settles it', async () => {
    // The first request is stored at once and answered after 10 s, past the attempt's 2 s: the
    // client retries with the same key, which this store ignores, and meets "duplicate id" (its
    // answer comes at once, well within the second attempt's 2 s on a loaded machine).
    const { outbox } = await outboxOf('slowok10000,ok', {
      retry: { attempts: 2, attemptTimeoutMs: 2_000, baseDelayMs: 1 },
    });
    const id = 9200;
    const added = await outbox.add({ id, name: 'Doubtful', tag: 'x' });
    await outbox.flush();
    const doubtful = only(outbox);
    assert.deepEqual(
      [doubtful.state, doubtful.maybeCreated, doubtful.attempts],
      ['uncertain', true, 2],
    );
    assert.equal(doubtful.error.kind, 'rejected');
    assert.equal(scripted.requests(id).length, 2);
    await outbox.flush();
    assert.equal(
      scripted.requests(id).length,
      2,
      'an uncertain entry is never sent again on its own',
    );
    // The app looked: the plant is there.
    await outbox.markCreated(added.key);
    const settledEntry = only(outbox);
    assert.deepEqual(
      [settledEntry.state, settledEntry.maybeCreated, settledEntry.created],
      ['created', false, { name: 'Doubtful', tag: 'x' }],
    );
    await assert.rejects(outbox.markCreated(added.key), {
      kind: 'config',
      message: /markCreated: not now, it was created/,
    });
    await assert.rejects(outbox.retry(added.key), {
      kind: 'config',
      message: /retry: not now, it was created/,
    });
    outbox.close();
  });

  it('a connection reset after the store created the plant, then "duplicate id" on the retry: uncertain', async () => {
    const { outbox } = await outboxOf('storedreset,ok', { retry: { attempts: 2, baseDelayMs: 1 } });
    await outbox.add({ id: 9210, name: 'Reset' });
    await outbox.flush();
    const doubtful = only(outbox);
    assert.deepEqual(
      [doubtful.state, doubtful.maybeCreated, doubtful.attempts, doubtful.error.code],
      ['uncertain', true, 2, 3],
    );
    outbox.close();
  });

  it('attempts counts the requests sent: a 503 then 200 within one call is 2', async () => {
    const { outbox } = await outboxOf('503,ok', { retry: { attempts: 3, baseDelayMs: 1 } });
    await outbox.add({ id: 9250, name: 'Twice' });
    await outbox.flush();
    assert.deepEqual([only(outbox).state, only(outbox).attempts], ['created', 2]);
    outbox.close();
  });

  it('an id already in the outbox: the same plant gives its entry back, another plant is refused', async () => {
    const { outbox, records } = await outboxOf('ok');
    outbox.pause();
    const first = await outbox.add({ id: 9300, name: 'Once' });
    const again = await outbox.add({ id: 9300, name: 'Once' });
    assert.equal(again.key, first.key);
    const [a, b] = await Promise.all([
      outbox.add({ id: 9301n, name: 'Twin' }),
      outbox.add({ id: 9301n, name: 'Twin' }),
    ]);
    assert.equal(a.key, b.key, 'two adds at once of one plant: one entry');
    await assert.rejects(
      outbox.add({ id: 9300, name: 'Other' }),
      (err) =>
        err instanceof PlantStoreError &&
        err.kind === 'config' &&
        err.message.includes(first.key) &&
        /remove it first/.test(err.message),
    );
    assert.equal((await records()).length, 2);
    outbox.close();
  });

  it('created entries leave the store after the retention, each removal told', async () => {
    const { outbox, records, changes } = await outboxOf('ok', { retentionMs: 0 });
    const { key } = await outbox.add({ id: 9400, name: 'Brief' });
    await until(() => changes.some((c) => c.key === key && c.state === 'created'), 'created');
    await outbox.flush(); // the next round removes it
    assert.equal(outbox.entries().length, 0);
    assert.deepEqual(await records(), []);
    assert.deepEqual(changes.at(-1), { key, removed: true });
    // Kept a day by default.
    const kept = await outboxOf('ok');
    await kept.outbox.add({ id: 9401, name: 'Kept' });
    await kept.outbox.flush();
    await kept.outbox.flush();
    assert.deepEqual([only(kept.outbox).state, (await kept.records()).length], ['created', 1]);
    kept.outbox.close();
    outbox.close();
  });

  it('an IndexedDB whose requests throw: a clear error and nothing lost; a record it cannot read is set aside', async () => {
    const { outbox } = await outboxOf('ok');
    let restore = patch(IDBObjectStore.prototype, 'add', () => () => {
      throw new Error('disk full.');
    });
    try {
      await assert.rejects(outbox.add({ id: 9500, name: 'Lost?' }), {
        kind: 'config',
        message: 'the outbox could not store the entry: Error: disk full',
      });
    } finally {
      restore();
    }
    assert.deepEqual(outbox.entries(), [], 'nothing added');
    outbox.close();

    // The load's first request throws.
    restore = patch(IDBIndex.prototype, 'openCursor', () => () => {
      throw new Error('disk gone.');
    });
    try {
      await assert.rejects(outboxOf('ok'), {
        kind: 'config',
        message: 'the outbox could not read its store: Error: disk gone',
      });
    } finally {
      restore();
    }

    // A record of this schema it cannot read, and a newer release's, where a load finds them; one
    // more of the newer release, past an `expiresAt` of its own, which the purge leaves.
    const { site, name } = await seeded([
      { v: 1, key: 'junk', state: 'flying', dueAt: 8.64e15 },
      { v: 4, key: 'newer', plant: { id: '1', name: 'x' }, dueAt: 8.64e15 },
      { v: 4, key: 'newer-expiring', plant: { id: '2', name: 'y' }, expiresAt: 1 },
    ]);
    const opened = await outboxOf('ok', { site, name });
    const aside = opened.outbox.unreadable();
    assert.deepEqual(
      aside.map((u) => u.key),
      ['junk', 'newer', 'newer-expiring'],
    );
    assert.match(aside[0].reason, /^it has no|its plant/);
    assert.match(aside[1].reason, /written by a newer release of plant-store-client \(schema 4\)/);
    assert.deepEqual(aside[0].record, { v: 1, key: 'junk', state: 'flying', dueAt: 8.64e15 });
    await opened.outbox.remove('junk');
    await opened.outbox.flush(); // a round, and its purge
    assert.deepEqual(
      opened.outbox.unreadable().map((u) => u.key),
      ['newer', 'newer-expiring'],
    );
    assert.deepEqual(
      (await opened.records()).map((r) => r.key),
      ['newer', 'newer-expiring'],
      'the newer records are kept for their release',
    );
    opened.outbox.close();
  });

  it('a store that cannot record an answer: a warning that names the entry, and the next round sends it again', async (t) => {
    let refusals = 1;
    const restore = patch(
      IDBObjectStore.prototype,
      'put',
      (put) =>
        function (record, ...rest) {
          if (record?.state === 'created' && refusals-- > 0) throw new Error('disk busy.');
          return put.call(this, record, ...rest);
        },
    );
    t.after(restore);
    const warnings = [];
    const warn = console.warn;
    console.warn = (...args) => warnings.push(args.join(' '));
    try {
      const { outbox, records } = await outboxOf('ok');
      t.after(() => outbox.close());
      const { key } = await outbox.add({ id: 9550, name: 'Unrecorded' });
      // The add's round sends it, and the store refuses its answer: the entry stays `sending`, and
      // the outbox's own timer starts the round that sends it again, with its key.
      await until(
        () => scripted.requests(9550).length === 2 && only(outbox).state !== 'sending',
        'sent again',
        10_000,
      );
      assert.ok(
        warnings.some(
          (w) =>
            w.includes(`could not record the answer to entry ${key}: it stays sending`) &&
            w.endsWith('(Error: disk busy)'),
        ),
        warnings.join('\n'),
      );
      const requests = scripted.requests(9550);
      assert.deepEqual(
        requests.map((r) => r.headers['idempotency-key']),
        [`"${key}"`, `"${key}"`],
      );
      // This store ignores the key and says "duplicate id": the plant most likely exists.
      const entry = only(outbox);
      assert.deepEqual([entry.state, entry.maybeCreated, entry.error.code], ['uncertain', true, 3]);
      assert.equal((await records())[0].state, 'uncertain', 'recorded this time');
      outbox.close();
    } finally {
      console.warn = warn;
    }
  });

  it('offline, the outbox arms no timer (no round after round): the online event wakes it', async (t) => {
    const { outbox, tab } = await outboxOf('503');
    t.after(() => outbox.close());
    await outbox.add({ id: 9560, name: 'Offline' });
    await outbox.flush();
    assert.equal(only(outbox).state, 'pending', 'a 503: it waits for its next attempt');
    const sent = scripted.requests(9560).length;
    const setTimeout = globalThis.setTimeout;
    const timers = [];
    // Offline as navigator.onLine says, with no event: the outbox reads it at each call.
    tab.platform.navigator.onLine = false;
    globalThis.setTimeout = (f, ms, ...args) => {
      timers.push(ms);
      return setTimeout(f, ms, ...args);
    };
    try {
      await outbox.flush(); // a round that sends nothing, then no timer while offline
      assert.deepEqual(timers, [], 'no timer armed offline');
      assert.equal(scripted.requests(9560).length, sent, 'nothing sent offline');
    } finally {
      globalThis.setTimeout = setTimeout;
      tab.platform.navigator.onLine = true;
    }
    await outbox.flush(); // online again
    assert.equal(scripted.requests(9560).length, sent + 1, 'sent once online');
  });

  it('a closed outbox the app drops is collected: nothing of the crate holds it', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc');
    let collected = 0;
    const registry = new FinalizationRegistry(() => collected++);
    for (let i = 0; i < 5; i++) {
      const { outbox } = await outboxOf('ok');
      outbox.addEventListener('change', () => outbox.entries());
      await outbox.add({ id: 9570 + i, name: 'Dropped' });
      await outbox.flush();
      outbox.close();
      registry.register(outbox, i);
    }
    await until(
      () => {
        gc();
        return collected === 5;
      },
      'the 5 closed outboxes collected',
      10_000,
    );
  });

  it('a removal while the entry is being sent is not undone by its answer', async () => {
    const { outbox, records, changes } = await outboxOf('slowok500');
    const { key } = await outbox.add({ id: 9700, name: 'Removed' });
    await until(() => changes.some((c) => c.key === key && c.state === 'sending'), 'sending');
    await outbox.remove(key);
    await outbox.flush(); // resolves once the round, and so the call, is over
    assert.equal(scripted.requests(9700).length, 1, 'the request was out');
    assert.deepEqual(outbox.entries(), []);
    assert.deepEqual(await records(), [], 'the answer wrote nothing back');
    outbox.close();
  });

  it("the outbox's errors are instances of either entry's PlantStoreError", async () => {
    const { outbox } = await outboxOf('ok');
    const err = await outbox.add({ id: 1.5, name: 'x' }).catch((e) => e);
    assert.ok(err instanceof PlantStoreError, "the default entry's class");
    assert.ok(err instanceof api.PlantStoreError, "the outbox entry's class");
    assert.ok(!(new Error('x') instanceof PlantStoreError));
    outbox.close();
  });

  it('a token source that fails, so that no request goes out: the wait still doubles, try after try', async () => {
    const signedOut = async () => {
      throw new Error('signed out');
    };
    const { outbox } = await outboxOf('ok', { token: undefined, getToken: signedOut });
    await outbox.add({ id: 9710, name: 'Signed out' });
    const seen = [];
    for (let flushes = 0; seen.length < 3 && flushes < 10; flushes++) {
      await outbox.flush(); // its own timer may try too: each try is checked
      const { attempts, nextAttemptAt, updatedAt, state } = only(outbox);
      if (attempts !== seen.at(-1)?.attempts)
        seen.push({ attempts, wait: nextAttemptAt - updatedAt, state });
    }
    assert.deepEqual(
      seen.map((s) => s.state),
      ['pending', 'pending', 'pending'],
      'each flush tried it again',
    );
    for (const { attempts, wait } of seen) {
      // 1 s doubling, equal jitter: from half the doubled wait to all of it.
      const doubled = 1000 * 2 ** (attempts - 1);
      assert.ok(attempts >= 1 && wait >= doubled / 2 && wait <= doubled, JSON.stringify(seen));
    }
    assert.equal(scripted.requests(9710).length, 0, 'nothing was sent');
    outbox.close();
  });

  it('the retention removes a created entry on its own timer, no round asked', async () => {
    const { outbox, records, changes } = await outboxOf('ok', { retentionMs: 5_000 });
    const { key } = await outbox.add({ id: 9711, name: 'Brief' });
    await outbox.flush(); // created, and its round's purge over, which kept it
    assert.equal(only(outbox).state, 'created');
    await until(
      () => changes.some((c) => c.key === key && c.removed),
      'removed by its timer',
      30_000,
    );
    assert.deepEqual(await records(), []);
    outbox.close();
  });

  it('a get that throws: a config error, nothing set aside; each removal told', async (t) => {
    const { site, name } = await seeded([{ key: 'junk', state: 'flying', dueAt: 8.64e15 }]);
    const { outbox } = await outboxOf('ok', { site, name });
    t.after(
      patch(
        IDBObjectStore.prototype,
        'get',
        (get) =>
          function (key, ...rest) {
            if (key === 'boom') throw new Error('disk gone.');
            return get.call(this, key, ...rest);
          },
      ),
    );
    await assert.rejects(
      outbox.get('boom'),
      (e) =>
        e instanceof PlantStoreError &&
        e.kind === 'config' &&
        e.message === 'the outbox could not read its store: Error: disk gone',
    );
    await assert.rejects(outbox.remove('nope'), {
      kind: 'config',
      message: 'outbox.remove: not now, the outbox holds no entry of this key',
    });
    assert.deepEqual(
      outbox.unreadable().map((u) => u.key),
      ['junk'],
      'no record made up of a failed read',
    );
    let told = 0;
    outbox.subscribe(() => told++);
    await outbox.remove('junk');
    assert.deepEqual(
      [outbox.unreadable(), told],
      [[], 1],
      'the removal of a record set aside is told',
    );
    assert.ok(
      Object.isFrozen(outbox.entries()),
      "the snapshot's array cannot be changed by its reader",
    );
    outbox.close();
  });

  it('a record it cannot read, its expiry passed, arms no timer: no round after round', async (t) => {
    const { site, name } = await seeded([
      { v: 4, key: 'newer', plant: { id: '1', name: 'x' }, expiresAt: Date.now() - 1_000 },
    ]);
    let transactions = 0;
    t.after(
      patch(
        IDBDatabase.prototype,
        'transaction',
        (transaction) =>
          function (...args) {
            transactions++;
            return transaction.apply(this, args);
          },
      ),
    );
    const { outbox } = await outboxOf('ok', { site, name });
    await outbox.flush();
    const after = transactions;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    assert.equal(transactions, after, 'no round ran on its own');
    outbox.close();
  });
});

describe('the outbox at its edges, in Chromium with IndexedDB', { timeout: 240_000 }, () => {
  let server;
  let chromium;
  let strict;

  before(async () => {
    server = await startServer({ token: TOKEN });
    strict = await startStrictCors(server.url);
    chromium = await startBrowser({ api: server.url, pages: { '/both': BOTH } });
  });
  after(async () => {
    await chromium?.close();
    strict?.close();
    await server?.stop();
  });

  const open = (page, name, options = {}) =>
    openIn(page, { baseUrl: server.url, token: TOKEN, name, ...options });
  const keysSent = (id) => chromium.posts.filter((p) => p.id === String(id)).map((p) => p.key);

  it('the sending tab closes mid-request: the other takes over at once, without a trigger of its own', async () => {
    const [a, b] = [await chromium.tab(), await chromium.tab()];
    // a's answer never comes back before it closes, however slow the machine; b's comes at once.
    await open(a, 'handover', { baseUrl: `${server.url}/__test/hold/60000` }); // a holds the lock: it sends
    await open(b, 'handover');
    const id = 9800;
    await a.evaluate((id) => outbox.add({ id, name: 'Handed over' }), id);
    await until(
      async () => (await server.json('/__test/stats')).plants > 0 && keysSent(id).length === 1,
      'a sent it',
    );
    await b.waitForFunction(() => outbox.entries()[0]?.state === 'sending');
    const closed = Date.now();
    await a.close(); // its answer never comes back; b has no timer, no event of its own
    await until(() => keysSent(id).length === 2, 'b sends it again', 30_000);
    const took = chromium.posts.filter((p) => p.id === String(id))[1].at - closed;
    await settled(b, 1);
    const [entry] = await entries(b);
    assert.deepEqual([entry.attempts, entry.maybeCreated], [2, false]);
    assert.equal(new Set(keysSent(id)).size, 1, 'with the same key');
    console.log(
      `hand-over: the other tab sent the entry again ${took} ms after the sending tab closed`,
    );
    await b.close();
  });

  it('without the Web Locks API: every tab sends, each entry once, and open says so', async () => {
    const warnings = [];
    const [a, b] = [
      await chromium.tab('/', withoutWebLocks),
      await chromium.tab('/', withoutWebLocks),
    ];
    for (const page of [a, b])
      page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
    await open(a, 'no-locks');
    await open(b, 'no-locks');
    const ids = Array.from({ length: 16 }, (_, i) => 9840 + i);
    await Promise.all([
      a.evaluate(
        (ids) => Promise.all(ids.map((id) => outbox.add({ id, name: 'A' }))),
        ids.slice(0, 8),
      ),
      b.evaluate(
        (ids) => Promise.all(ids.map((id) => outbox.add({ id, name: 'B' }))),
        ids.slice(8),
      ),
    ]);
    await settled(a, 16);
    await settled(b, 16);
    // Each tab marks an entry `sending` only over the revision it read: one of them wins.
    assert.equal(
      chromium.posts.filter((p) => ids.includes(+p.id)).length,
      16,
      'one POST per plant',
    );
    assert.equal(
      warnings.filter((w) => /no Web Locks API, so every tab of the outbox sends/.test(w)).length,
      2,
    );
    await a.close();
    await b.close();
  });

  it('a removal in one tab while another sends the entry: it never comes back', async () => {
    const [a, b] = [await chromium.tab(), await chromium.tab()];
    // b must see the entry sending before a's answer comes, 5 s after the request: time enough
    // however loaded the machine.
    const options = { baseUrl: `${server.url}/__test/hold/5000` };
    await open(a, 'race', options);
    await open(b, 'race', options);
    const { key } = await a.evaluate(() => outbox.add({ id: 9810, name: 'Raced' }));
    await b.waitForFunction(() => outbox.entries()[0]?.state === 'sending');
    await b.evaluate((key) => outbox.remove(key), key);
    await a.evaluate(() => outbox.flush()); // a's send is over
    for (const page of [a, b]) assert.deepEqual(await entries(page), []);
    const stored = await a.evaluate(
      () =>
        new Promise((resolve) => {
          const request = indexedDB.open('plant-store-outbox:race');
          request.onsuccess = () => {
            const get = request.result.transaction('entries').objectStore('entries').getAll();
            get.onsuccess = () => {
              resolve(get.result);
              request.result.close();
            };
          };
        }),
    );
    assert.deepEqual(stored, [], 'the answer wrote nothing back');
    await a.close();
    await b.close();
  });

  it('the retention purge in the sending tab reaches the other tabs', async () => {
    const [a, b] = [await chromium.tab(), await chromium.tab()];
    await open(a, 'purged', { retentionMs: 0 });
    await open(b, 'purged', { retentionMs: 0 });
    await b.evaluate(() => outbox.pause());
    await a.evaluate(() => outbox.pause()); // nothing is sent until b holds the entry
    const { key } = await a.evaluate(() => outbox.add({ id: 9870, name: 'Brief' }));
    await b.waitForFunction((key) => outbox.entries().some((e) => e.key === key), key);
    await a.evaluate(() => {
      outbox.resume();
      return outbox.flush();
    }); // created, then removed in the same round
    await b.waitForFunction(
      (key) => outbox.entries().length === 0 && changes.some((c) => c.key === key && c.removed),
      key,
    );
    await a.close();
    await b.close();
  });

  it('a flush in a tab that does not hold the lock runs its own round after the one under way', async () => {
    const [a, b] = [await chromium.tab(), await chromium.tab()];
    const options = { baseUrl: `${server.url}/__test/hold/1000` };
    await open(a, 'flushes', options);
    await open(b, 'flushes', options);
    const state = await b.evaluate(async () => {
      await outbox.add({ id: 9880, name: 'Flushed' });
      return outbox.flush().then(() => outbox.entries()[0].state);
    });
    assert.equal(state, 'created', "b's flush resolved once its entry was tried");
    await a.close();
    await b.close();
  });

  it('a message on the channel that is not a hint changes nothing; a hint is read again from the store', async () => {
    const [a, b] = [await chromium.tab(), await chromium.tab()];
    await open(a, 'ghost');
    await open(b, 'ghost');
    await b.evaluate(() => outbox.pause());
    await a.evaluate(() => outbox.pause()); // neither sends: the entry stays as added
    const { key } = await a.evaluate(() => outbox.add({ id: 9890, name: 'Ghost' }));
    await b.waitForFunction((key) => outbox.entries().some((e) => e.key === key), key);
    await b.evaluate((key) => outbox.remove(key), key);
    await a.waitForFunction((key) => !outbox.entries().some((e) => e.key === key), key);
    // What the previous release posted (a record), anything at all, and a hint of the removed key.
    const marker = '00000000-0000-4000-8000-000000009891';
    await b.evaluate(
      ({ key, marker }) => {
        const channel = new BroadcastChannel('plant-store-outbox:ghost');
        channel.postMessage({
          key,
          v: 2,
          revision: 9,
          state: 'pending',
          plant: { id: '9890', name: 'Ghost' },
        });
        channel.postMessage({ key: marker, removed: true });
        channel.postMessage('junk');
        channel.postMessage({ type: 'plant-store-outbox', v: 2, keys: [key] });
        channel.postMessage({ type: 'plant-store-outbox', v: 1, keys: [key, 42] });
      },
      { key, marker },
    );
    const { key: after } = await b.evaluate(() => outbox.add({ id: 9891, name: 'After' }));
    for (const page of [a, b]) {
      await page.waitForFunction((after) => outbox.entries().some((e) => e.key === after), after);
      assert.deepEqual(
        (await entries(page)).map((e) => e.key),
        [after],
        'the removed entry stays removed',
      );
      assert.deepEqual(
        await page.evaluate(() => outbox.unreadable()),
        [],
        'and nothing was set aside',
      );
    }
    await a.close();
    await b.close();
  });

  it('a newer page upgrading the database: the outbox closes cleanly and lets it', async () => {
    const page = await chromium.tab();
    await open(page, 'upgraded');
    // A newer release opens the database at version 4: the outbox closes and lets it.
    const upgraded = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const request = indexedDB.open('plant-store-outbox:upgraded', 4);
          request.onsuccess = () => {
            request.result.close();
            resolve(request.result.version);
          };
          request.onblocked = () => resolve('blocked');
        }),
    );
    assert.equal(upgraded, 4);
    assert.deepEqual(await page.evaluate(() => closes), [
      "another page opened a newer version of the outbox's database",
    ]);
    await assert.rejects(
      page.evaluate(() => outbox.add({ id: 1, name: 'x' })),
      /the outbox is closed/,
    );
    await page.close();
  });

  it('its database deleted: the outbox closes, and says the database is being deleted', async () => {
    const page = await chromium.tab();
    await open(page, 'deleted');
    const deleted = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const request = indexedDB.deleteDatabase('plant-store-outbox:deleted');
          request.onsuccess = () => resolve('deleted');
          request.onblocked = () => resolve('blocked');
        }),
    );
    assert.equal(deleted, 'deleted');
    assert.deepEqual(await page.evaluate(() => closes), ["the outbox's database is being deleted"]);
    await page.close();
  });

  it('a server whose CORS allows Authorization and Content-Type only: createPlant works, the outbox says why it waits', async () => {
    // A page served from loopback, in a context without Playwright's routing (which answers the
    // preflights itself): the browser asks the server's own CORS.
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    await page.goto(strict.page);
    await page.waitForFunction(() => window.ready);
    const plant = await page.evaluate(
      ({ url, token }) => createPlant({ id: 9830, name: 'Plain' }, { baseUrl: url, token }),
      { url: strict.url, token: TOKEN },
    );
    assert.deepEqual(plant, { name: 'Plain' });
    assert.equal(strict.preflights.length, 1);
    await openIn(page, { baseUrl: strict.url, token: TOKEN, name: 'strict-cors' });
    await page.evaluate(() => outbox.add({ id: 9831, name: 'Keyed' }));
    await page.waitForFunction(() => outbox.entries()[0]?.error !== undefined);
    const [entry] = await entries(page);
    assert.equal(entry.state, 'pending');
    assert.equal(entry.error.kind, 'network');
    assert.match(
      entry.error.message,
      /another origin: if it is up, its CORS may refuse the call \(it must allow this origin, POST and the headers Authorization, Content-Type, Idempotency-Key\)/,
    );
    assert.match(strict.preflights.at(-1), /idempotency-key/);
    console.log(`strict CORS: ${entry.error.message}`);
    await context.close();
  });

  it('a page that loads both builds: one warning, with the fix, and one error class', async () => {
    const page = await chromium.context.newPage();
    const warnings = [];
    page.on('console', (message) => message.type() === 'warning' && warnings.push(message.text()));
    await page.goto(`${ORIGIN}/both`);
    const result = await page.waitForFunction(() => window.result).then((r) => r.jsonValue());
    assert.deepEqual(result, { instance: true, kind: 'validation' });
    const twice = warnings.filter((w) => w.includes('loaded twice'));
    assert.equal(twice.length, 1, warnings.join('\n'));
    assert.match(
      twice[0],
      /imports everything \(createPlant, PlantStoreError, …\) from 'plant-store-client\/outbox'/,
    );
    await page.close();
  });

  it('a plant added as the page leaves (pagehide) is stored: the next page lists it and sends it', async () => {
    const page = await chromium.tab();
    await open(page, 'save-on-leave');
    await page.evaluate(() => {
      // A "save on leave": the app adds what the form holds as its page goes.
      window.addEventListener('pagehide', () => {
        window.saving = outbox.add({ id: 9936, name: 'Saved on leave' });
      });
    });
    await page.close({ runBeforeUnload: true });
    const next = await chromium.tab();
    await open(next, 'save-on-leave');
    await settled(next, 1);
    assert.deepEqual(keysSent(9936).length, 1);
    await next.close();
  });

  it("a plant added as the page leaves while the outbox's own transaction is open is stored: the next page lists it and sends it", async () => {
    // On the first page (`/`), once `keep` is set, each readwrite transaction of the outbox stays
    // open until it ends otherwise (aborted, or the page gone): a request after another, each a
    // count of 50,000 records that the outbox never reads (slow enough not to flood IndexedDB, which
    // then drops the writes of a page that leaves, the outbox's or not).
    const page = await chromium.tab('/', () => {
      if (location.pathname !== '/') return;
      const transaction = IDBDatabase.prototype.transaction;
      window.kept = 0; // the transactions kept open now
      IDBDatabase.prototype.transaction = function (scope, mode, ...rest) {
        const tx = transaction.call(this, scope, mode, ...rest);
        if (!window.keep || mode !== 'readwrite' || !this.name.startsWith('plant-store-outbox:'))
          return tx;
        const entries = tx.objectStore('entries');
        const again = () => {
          try {
            entries.count().onsuccess = again;
          } catch {
            // it is committing
          }
        };
        again();
        window.kept++;
        for (const end of ['complete', 'abort']) tx.addEventListener(end, () => window.kept--);
        return tx;
      };
    });
    await open(page, 'leave-while-open');
    await page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const request = indexedDB.open('plant-store-outbox:leave-while-open');
          request.onsuccess = () => {
            const tx = request.result.transaction('entries', 'readwrite');
            for (let i = 0; i < 50_000; i++) tx.objectStore('entries').put({ key: `ballast-${i}` });
            tx.oncomplete = () => resolve(request.result.close());
            tx.onabort = () => reject(tx.error);
          };
        }),
    );
    await page.evaluate(() => {
      window.addEventListener('pagehide', () => {
        outbox.add({ id: 9937, name: 'Saved as a transaction was open' });
      });
      window.keep = true;
      outbox.flush(); // a round, whose writes stay open
    });
    await page.waitForFunction(() => window.kept > 0);
    await page.goto(`${ORIGIN}/tab`);
    await page.waitForFunction(() => window.ready);
    await open(page, 'leave-while-open');
    assert.deepEqual(
      (await entries(page)).map((e) => e.plant.id),
      [9937],
      'stored as the page left',
    );
    await settled(page, 1);
    assert.equal(keysSent(9937).length, 1);
    await page.close();
  });

  it('an add or a removal followed at once by close(): each resolves, and was done', async () => {
    const page = await chromium.tab();
    await open(page, 'closed-at-once');
    const key = await page.evaluate(async () => {
      const adding = outbox.add({ id: 9930, name: 'Closed at once' });
      outbox.close(); // before the store has written it, and so before its hint to the other tabs
      return adding.then(
        (entry) => entry.key,
        (error) => `${error.name}: ${error.message}`,
      );
    });
    assert.match(key, /^[0-9a-f]{8}-/, 'add resolved to its entry');
    await open(page, 'closed-at-once');
    assert.equal(
      await page.evaluate((key) => outbox.get(key).then((entry) => entry?.key), key),
      key,
      'it was stored',
    );
    const removed = await page.evaluate(async (key) => {
      const removing = outbox.remove(key);
      outbox.close();
      return removing.then(
        () => 'removed',
        (error) => `${error.name}: ${error.message}`,
      );
    }, key);
    assert.equal(removed, 'removed');
    await open(page, 'closed-at-once');
    assert.equal(await page.evaluate((key) => outbox.get(key), key), undefined, 'it was removed');
    await page.close();
  });

  it("a record it cannot read that holds a plant's id: adding that plant is a config error that says how to fix it", async () => {
    const page = await chromium.tab();
    await open(page, 'aside-id');
    await page.evaluate(() => outbox.close());
    // A newer release's entry of plant 9931, written as that release would (with its due time).
    await page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const request = indexedDB.open('plant-store-outbox:aside-id');
          request.onsuccess = () => {
            const tx = request.result.transaction('entries', 'readwrite');
            tx.objectStore('entries').put({
              v: 4,
              key: 'future-9931',
              id: '9931',
              plant: { id: '9931', name: 'Future' },
              dueAt: 8.64e15,
            });
            tx.oncomplete = () => {
              request.result.close();
              resolve();
            };
            tx.onerror = () => reject(tx.error);
          };
        }),
    );
    await open(page, 'aside-id');
    const said = await page.evaluate(() =>
      outbox.add({ id: 9931, name: 'Future' }).then(
        () => 'added',
        (e) => [e.kind, e.message],
      ),
    );
    assert.equal(said[0], 'config');
    assert.match(
      said[1],
      /^a record of this plant's id that the outbox cannot read is in the way \(it was written by a newer release of plant-store-client \(schema 4\).*\); remove it, by its key \(future-9931\), to add the plant$/,
    );
    assert.deepEqual(await page.evaluate(() => outbox.unreadable().map((u) => u.key)), [
      'future-9931',
    ]);
    await page.evaluate(() => outbox.remove('future-9931'));
    const added = await page.evaluate(() =>
      outbox.add({ id: 9931, name: 'Future' }).then((entry) => entry.plant.id),
    );
    assert.equal(added, 9931);
    await page.close();
  });

  it('a subscriber that throws stops nothing: it is reported, the add resolves, the entry is sent, the others are told', async () => {
    const page = await chromium.tab();
    await open(page, 'throwing-subscriber');
    const key = await page.evaluate(async () => {
      window.reported = [];
      window.addEventListener('error', (event) => {
        reported.push(event.message);
        event.preventDefault();
      });
      window.told = 0;
      outbox.subscribe(() => {
        if (outbox.entries().some((e) => e.state !== 'created')) throw new Error('render bug');
      });
      outbox.subscribe(() => {
        window.told++;
      });
      return (await outbox.add({ id: 9932, name: 'Subscribed' })).key;
    });
    await settled(page, 1);
    assert.deepEqual(await page.evaluate(() => outbox.entries().map((e) => e.key)), [key]);
    const { reported, told } = await page.evaluate(() => ({ reported, told }));
    assert.ok(
      told >= 3,
      `the other subscriber was told each change: pending, sending, created (${told})`,
    );
    assert.ok(
      reported.length >= 2 && reported.every((m) => /render bug/.test(m)),
      JSON.stringify(reported),
    );
    await page.close();
  });

  it('a tab that hides mid-call lets its call finish and records the answer: one request, the entry created', async () => {
    const page = await chromium.tab();
    // The hide must come before the answer: 5 s after the request, however loaded the machine.
    await open(page, 'hidden-mid-call', { baseUrl: `${server.url}/__test/hold/5000` });
    await page.evaluate(() => outbox.add({ id: 9933, name: 'Hidden' }));
    await until(() => keysSent(9933).length === 1, 'it is sent');
    await page.evaluate(() => {
      outbox.flush(); // a round asked for behind the one under way
      Object.defineProperty(document, 'visibilityState', {
        configurable: true,
        get: () => 'hidden',
      });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await settled(page, 1);
    assert.equal(keysSent(9933).length, 1, 'one request: the hide aborted nothing');
    await page.close();
  });

  it('a tab visible again within the second after it hid is a visible tab: its flush tries its entries', async () => {
    const page = await chromium.tab();
    await open(page, 'back-in-sight');
    const state = await page.evaluate(async () => {
      outbox.pause();
      await outbox.add({ id: 9935, name: 'In sight' });
      let hidden = true;
      Object.defineProperty(document, 'visibilityState', {
        configurable: true,
        get: () => (hidden ? 'hidden' : 'visible'),
      });
      document.dispatchEvent(new Event('visibilitychange'));
      hidden = false;
      document.dispatchEvent(new Event('visibilitychange'));
      outbox.resume();
      await outbox.flush();
      return outbox.entries()[0].state;
    });
    assert.equal(state, 'created');
    await page.close();
  });

  it("a page in the back/forward cache hears no hint: another tab's add leaves it there, and it lists the plant once back", async () => {
    const cached = await startBrowser({
      api: server.url,
      pages: { '/away': html('') },
      bfcache: true,
    });
    try {
      const options = { baseUrl: server.url, token: TOKEN, name: `bfcache-${Date.now()}` };
      const away = await cached.tab('/', () =>
        addEventListener('pageshow', (event) => {
          window.restored = event.persisted;
        }),
      );
      const other = await cached.tab();
      await openIn(away, options);
      await openIn(other, options);
      await away.goto(`${ORIGIN}/away`);
      await other.evaluate(() => outbox.add({ id: 1290, name: 'While away' }));
      await settled(other, 1);
      await away.goBack({ waitUntil: 'commit' });
      await away.waitForFunction(() => 'restored' in window);
      assert.equal(await away.evaluate(() => window.restored), true, 'back from the cache');
      await settled(away, 1);
    } finally {
      await cached.close();
    }
  });

  it('a page that leaves mid-call: its own call cut short is no failure to warn of', async () => {
    const page = await chromium.tab();
    const warnings = [];
    page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
    // The answer comes long after the page left (the flush below waits for no answer).
    await open(page, 'left-quietly', { baseUrl: `${server.url}/__test/hold/60000` });
    await page.evaluate(() => outbox.add({ id: 9934, name: 'Left' }));
    await until(() => keysSent(9934).length === 1, 'it is sent');
    // As a page going into the back/forward cache: the round is aborted and the store left.
    const states = await page.evaluate(async () => {
      window.dispatchEvent(new Event('pagehide'));
      await outbox.flush(); // resolves once the aborted round, its answer's write included, is over
      return outbox.entries().map((e) => e.state);
    });
    assert.deepEqual(states, ['sending'], 'left for the next sender');
    assert.deepEqual(
      warnings.filter((w) => /could not (record|take)/.test(w)),
      [],
    );
    await page.close();
  });
});

// A page that imports PlantStoreError from the default build and the outbox from its own.
const BOTH = html(`
  import { PlantStoreError } from '/pkg/index.js';
  import { PlantOutbox } from '/pkg/outbox/index.js';
  const outbox = await PlantOutbox.open({ baseUrl: 'http://127.0.0.1:9', token: 't', name: 'both' });
  const err = await outbox.add({ id: 'x', name: 'x' }).catch((e) => e);
  window.result = { instance: err instanceof PlantStoreError, kind: err.kind };`);

/**
 * A proxy to `target` whose CORS allows only `Authorization` and `Content-Type`, as a server that
 * never heard of Idempotency-Key would; and, on another port, a page with the outbox entry.
 */
async function startStrictCors(target) {
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-headers': 'authorization, content-type',
    'access-control-allow-methods': 'POST',
  };
  const preflights = [];
  const server = http.createServer(async (req, res) => {
    if (req.method === 'OPTIONS') {
      preflights.push(req.headers['access-control-request-headers']);
      return res.writeHead(204, cors).end();
    }
    let body = '';
    for await (const chunk of req) body += chunk;
    const answer = await fetch(target + req.url, {
      method: req.method,
      headers: { authorization: req.headers.authorization, 'content-type': 'application/json' },
      body,
    });
    res
      .writeHead(answer.status, { ...cors, 'content-type': 'application/json' })
      .end(await answer.text());
  });
  const script = `import * as api from '/pkg/outbox/index.js'; Object.assign(window, api); window.track = () => {}; window.ready = true;`;
  const pages = http.createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(html(script));
    sendFile(res, PKG, path.replace(/^\/pkg\//, ''));
  });
  for (const s of [server, pages]) s.listen(0, '127.0.0.1');
  await Promise.all([once(server, 'listening'), once(pages, 'listening')]);
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    page: `http://127.0.0.1:${pages.address().port}/`,
    preflights,
    close: () => {
      for (const s of [server, pages]) {
        s.closeAllConnections();
        s.close();
      }
    },
  };
}
