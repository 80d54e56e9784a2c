// The outbox on one truth (issue 43): each defect it lists, held by a test that failed before its
// fix. In headless Chromium with IndexedDB against the reference server (which honours
// Idempotency-Key), and in Node on fake-indexeddb (support/platform.mjs). Every wait is on what a
// server, a store or the outbox recorded and keeps, bounded; none on a state that lasts only until
// the next round.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IDBObjectStore } from 'fake-indexeddb';
import { startServer, PKG } from './support/server.mjs';
import { origin } from './support/platform.mjs';
import { startBrowser, openIn, entries, settled, until } from './support/outbox-page.mjs';

const TOKEN = 'truth-token-0123';

describe('the outbox on one truth, in Chromium with IndexedDB', { timeout: 240_000 }, () => {
  let server;
  let chromium;

  before(async () => {
    server = await startServer({ token: TOKEN });
    chromium = await startBrowser({ api: server.url });
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
  });

  const open = (page, name, options = {}) =>
    openIn(page, { baseUrl: server.url, token: TOKEN, name, ...options });
  const postsOf = (id) => chromium.posts.filter((p) => p.id === String(id));
  /** The records of the outbox `name`'s database, by key, read in `page`. */
  const stored = (page, name) =>
    page.evaluate(
      (name) =>
        new Promise((resolve) => {
          const request = indexedDB.open(`plant-store-outbox:${name}`);
          request.onsuccess = () => {
            const all = request.result.transaction('entries').objectStore('entries').getAll();
            all.onsuccess = () => {
              resolve(Object.fromEntries(all.result.map((r) => [r.key, r])));
              request.result.close();
            };
          };
        }),
      name,
    );

  it('1. a plant added again after a reload, its entry created and kept, gives that entry back; two tabs adding one plant make one entry', async () => {
    const page = await chromium.tab();
    await open(page, 'again');
    const first = await page.evaluate(() => outbox.add({ id: 9910, name: 'Again' }));
    await settled(page, 1);
    await page.reload();
    await page.waitForFunction(() => window.ready);
    await open(page, 'again');
    const again = await page.evaluate(() => outbox.add({ id: 9910, name: 'Again' }));
    assert.deepEqual(
      [again.key, again.state],
      [first.key, 'created'],
      'the created entry, given back',
    );
    await assert.rejects(
      page.evaluate(() => outbox.add({ id: 9910, name: 'Other' })),
      /already holds another plant with this id/,
    );
    assert.equal(postsOf(9910).length, 1, 'sent once');

    const other = await chromium.tab();
    await open(other, 'again');
    await Promise.all([page, other].map((p) => p.evaluate(() => outbox.pause())));
    const [a, b] = await Promise.all(
      [page, other].map((p) => p.evaluate(() => outbox.add({ id: 9911, name: 'Twin' }))),
    );
    assert.equal(a.key, b.key, 'one entry, whichever tab stored it first');
    const records = Object.values(await stored(page, 'again')).filter((r) => r.id === '9911');
    assert.equal(records.length, 1);
    await page.close();
    await other.close();
  });

  it('2. after a reload the created entries are listed; any key kept can be read, removed or settled', async () => {
    const page = await chromium.tab();
    await open(page, 'kept');
    const ids = Array.from({ length: 102 }, (_, i) => 20000 + i);
    const keys = await page.evaluate(
      (ids) =>
        Promise.all(ids.map((id) => outbox.add({ id, name: `Kept ${id}` }).then((e) => e.key))),
      ids,
    );
    await settled(page, 102);
    await page.reload();
    await page.waitForFunction(() => window.ready);
    await open(page, 'kept');
    const listed = await entries(page);
    assert.equal(listed.length, 100, 'the newest 100 created entries, listed after the reload');
    assert.ok(listed.every((e) => e.state === 'created'));
    const oldest = keys.find((key) => !listed.some((e) => e.key === key));
    const read = await page.evaluate((key) => outbox.get(key), oldest);
    assert.deepEqual(
      [read.key, read.state],
      [oldest, 'created'],
      'an entry not listed, read by its key',
    );
    await page.evaluate((key) => outbox.remove(key), oldest);
    assert.equal(await page.evaluate((key) => outbox.get(key), oldest), undefined, 'and removed');
    await page.close();
  });

  it('3. a tab that freezes mid-round lets go: the visible tab sends while it stays frozen, and its flush resolves', async () => {
    const [a, b] = [await chromium.tab(), await chromium.tab()];
    // a's answer is held a minute (the server's most), past the bound of b's send below, and a is
    // paused once frozen: the lock is b's only if a let it go when it froze.
    await open(a, 'frozen', { baseUrl: `${server.url}/__test/hold/60000` });
    await open(b, 'frozen');
    await a.evaluate(() => outbox.add({ id: 9930, name: 'Held' })); // a's round holds the lock
    await until(() => postsOf(9930).length === 1, 'a sends it');
    // Frozen as Chrome freezes a background tab: the `freeze` event, then no script runs. (Headless
    // Chromium never hides a page, and so never freezes one itself.)
    const cdp = await chromium.context.newCDPSession(a);
    await a.evaluate(() => document.dispatchEvent(new Event('freeze')));
    await cdp.send('Debugger.enable');
    await cdp.send('Debugger.pause');
    try {
      const added = Date.now();
      await b.evaluate(() => outbox.add({ id: 9931, name: 'Visible' }));
      await until(() => postsOf(9931).length === 1, 'b sends its own entry', 30_000);
      const took = postsOf(9931)[0].at - added;
      // What a left sending is sent again by b, with its key; b's flush waits for no frozen tab.
      const flushed = await b.evaluate(() =>
        outbox.flush().then(() => outbox.entries().map((e) => e.state)),
      );
      assert.deepEqual(flushed, ['created', 'created']);
      assert.equal(new Set(postsOf(9930).map((p) => p.key)).size, 1);
      console.log(`frozen tab: the visible tab sent its entry ${took} ms after the add`);
    } finally {
      // A frozen tab hears no hint: it may have run no script, and never paused.
      await cdp.send('Debugger.resume').catch(() => {});
      await a.close();
      await b.close();
    }
  });

  it('4. a Web Locks request that rejects: the tab sends without the lock, says so, and its flush resolves', async () => {
    const warnings = [];
    const page = await chromium.tab('/', () => {
      navigator.locks.request = () =>
        Promise.reject(new DOMException('the document is not fully active', 'InvalidStateError'));
    });
    page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
    await open(page, 'rejected-lock');
    await page.evaluate(() => outbox.add({ id: 9940, name: 'Unlocked' }));
    await page.evaluate(() => outbox.flush());
    assert.deepEqual(
      (await entries(page)).map((e) => e.state),
      ['created'],
    );
    assert.equal(
      warnings.filter((w) =>
        /a request for its Web Lock failed \(InvalidStateError\), so every tab/.test(w),
      ).length,
      1,
      warnings.join('\n'),
    );
    await page.close();
  });

  it('5. a write that IndexedDB refuses as it is made is a failure, not a success: nothing is added', async () => {
    const page = await chromium.tab('/', () => {
      // Both ways a record is written: an add's, and a change's.
      for (const write of ['add', 'put']) {
        const original = IDBObjectStore.prototype[write];
        IDBObjectStore.prototype[write] = function (record, ...rest) {
          if (record?.plant?.name === 'Refused')
            throw new DOMException('the record cannot be stored', 'DataError');
          return original.call(this, record, ...rest);
        };
      }
    });
    await open(page, 'refused-put');
    const error = await page.evaluate(() =>
      outbox.add({ id: 9950, name: 'Refused' }).then(
        () => null,
        (e) => [e.kind, e.message],
      ),
    );
    assert.deepEqual(error, [
      'config',
      'the outbox could not store the entry: DataError: the record cannot be stored',
    ]);
    assert.deepEqual(await entries(page), []);
    assert.deepEqual(await stored(page, 'refused-put'), {});
    await page.close();
  });

  it('7. close() just after a 200 arrived: the answer is recorded, the entry created', async () => {
    const page = await chromium.tab();
    // The app closes the outbox from the hook that sees the answer: the call then ends with its Plant.
    await page.evaluate(
      async ({ url, token }) => {
        window.outbox = await PlantOutbox.open({
          baseUrl: url,
          token,
          name: 'closed-after',
          afterAttempt: ({ status }) => status === 200 && window.outbox.close(),
        });
      },
      { url: server.url, token: TOKEN },
    );
    const { key } = await page.evaluate(() => outbox.add({ id: 9970, name: 'Answered' }));
    await until(
      async () => (await stored(page, 'closed-after'))[key]?.state === 'created',
      'the answer recorded',
      10_000,
    );
    await assert.rejects(
      page.evaluate(() => outbox.add({ id: 9971, name: 'x' })),
      /the outbox is closed/,
    );
    assert.equal(postsOf(9970).length, 1, 'never sent again');
    await page.close();
  });

  it('9. a database of a newer release: open says to reload, and keeps nothing open', async () => {
    const page = await chromium.tab();
    await page.evaluate(
      () =>
        new Promise((resolve) => {
          const request = indexedDB.open('plant-store-outbox:newer', 7);
          request.onsuccess = () => {
            request.result.close();
            resolve();
          };
        }),
    );
    const refused = await page.evaluate(
      (options) =>
        PlantOutbox.open(options).then(
          () => 'opened',
          (e) => [e.kind, e.message],
        ),
      { baseUrl: server.url, token: TOKEN, name: 'newer' },
    );
    assert.deepEqual(refused, [
      'config',
      "the outbox's database was made by a newer release of this app: reload the page to run that release",
    ]);
    await page.close();
  });

  it('9. the retention removes every created entry past its time, on its own timer, without a round of sends', async () => {
    const page = await chromium.tab();
    await open(page, 'expiring', { retentionMs: 1_500 });
    const ids = Array.from({ length: 150 }, (_, i) => 21000 + i);
    await page.evaluate(
      (ids) => Promise.all(ids.map((id) => outbox.add({ id, name: 'Brief' }))),
      ids,
    );
    // Each created (the change events are kept: the first may expire before the last is created).
    await page.waitForFunction(
      () => new Set(changes.filter((c) => c.state === 'created').map((c) => c.key)).size === 150,
      null,
      { timeout: 60_000 },
    );
    // No add, flush or event from here: the timers of the expiries run the rounds that remove all 150.
    await page.waitForFunction(
      () => outbox.entries().length === 0 && changes.filter((c) => c.removed).length === 150,
      null,
      { timeout: 60_000 },
    );
    assert.deepEqual(await stored(page, 'expiring'), {});
    await page.close();
  });
});

describe('the outbox on one truth, in Node on fake-indexeddb', { timeout: 60_000 }, () => {
  let server;
  let api;

  before(async () => {
    server = await startServer({ token: TOKEN });
    api = await import(pathToFileURL(join(PKG, 'outbox/node.mjs')));
  });
  after(() => server?.stop());

  const open = (name) =>
    api.PlantOutbox.open({
      baseUrl: server.url,
      token: TOKEN,
      name,
      platform: origin().tab().platform,
    });

  it('an IndexedDB whose writes throw as they are called: a failure, and nothing is held', async (t) => {
    const outbox = await open('throwing');
    // Both ways a record is written: an add's, and a change's.
    for (const write of ['add', 'put']) {
      const original = IDBObjectStore.prototype[write];
      IDBObjectStore.prototype[write] = () => {
        throw new Error('quota exceeded');
      };
      t.after(() => {
        IDBObjectStore.prototype[write] = original;
      });
    }
    await assert.rejects(outbox.add({ id: 9990, name: 'x' }), {
      kind: 'config',
      message: 'the outbox could not store the entry: Error: quota exceeded',
    });
    assert.deepEqual(outbox.entries(), []);
    outbox.close();
  });

  it('10. entries() is the same array until something changes, and subscribe tells each change', async () => {
    const outbox = await open('snapshot');
    outbox.pause();
    let told = 0;
    const stop = outbox.subscribe(() => told++);
    const before = outbox.entries();
    assert.equal(outbox.entries(), before, 'the same array');
    await outbox.add({ id: 9991, name: 'Told' });
    const after = outbox.entries();
    assert.notEqual(after, before);
    assert.equal(outbox.entries(), after);
    assert.equal(told, 1);
    stop();
    outbox.resume();
    await outbox.flush();
    assert.equal(told, 1, 'no more once unsubscribed');
    assert.deepEqual(
      outbox.entries().map((e) => e.state),
      ['created'],
    );
    outbox.close();
  });
});
