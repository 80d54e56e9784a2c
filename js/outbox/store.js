// Where an outbox's records live, and the one place they are written: IndexedDB, or a store of the
// app's (`getAll`, `put`, `delete`, and `get` if it has one). Every change reads the record, asks
// Rust's table what it becomes (`rules.apply`, src/outbox/table.rs) and writes that, all in one
// IndexedDB readwrite transaction (in a store of the app's, in the outbox's turn: one change at a
// time): a write is made only over what was read. Records cross to Rust as JSON text; their schema
// is Rust's (src/outbox/record.rs). A step is `['put' | 'keep', record, view, due] | ['delete'] |
// ['aside' | 'refused', why]`.
import { PlantStoreError } from '../error.js';

/** Version 3 has the indexes `id` (unique), `due` and `expires`. */
const VERSION = 3;
/** How many created entries a load reads, newest first: the others are read by key. */
const CREATED_SHOWN = 100;
/** The last time a Date holds: the due time of entries never sent on their own (Rust's entry::NEVER). */
const NEVER = 8.64e15;

/** A record as JSON text for Rust; `'?'` (not JSON) for one that has no JSON form. */
export const text = (record) => {
  try {
    return record === undefined ? undefined : JSON.stringify(record);
  } catch {
    return '?';
  }
};

/** What a failure says, on one line, for a message. */
export const said = (cause) =>
  String(
    cause?.name && cause.message ? `${cause.name}: ${cause.message}` : (cause?.message ?? cause),
  )
    .replace(/[\r\n]+/g, ' ')
    .replace(/\.$/, '');

/** The `config` PlantStoreError of what the outbox could not do, and why. */
export const failed = (what, cause) =>
  new PlantStoreError('config', `the outbox could not ${what}: ${said(cause)}`, { cause });

/**
 * Opens `store` (the app's), else the IndexedDB database `plant-store-outbox:<name>`. Its
 * `closed(why)`, once set, is told when the browser closes the database under the outbox.
 */
export async function openStore(name, store, rules) {
  const backend = store === undefined ? await database(name, rules) : app(store);
  const apply = (raw, name, detail = '') => rules.apply(text(raw), name, detail);
  const write = (s, key, step) =>
    step[0] === 'put' ? s.put(JSON.parse(step[1])) : step[0] === 'delete' && s.delete(key);
  const run = backend.run;
  return Object.assign(backend, {
    /**
     * Changes the records of `changes` (`[key, event, detail]` each), in order, in one transaction: a
     * round writes an entry's answer and marks the next with one. A change that fails fails alone.
     */
    changes: (changes) =>
      run('relaxed', (s) =>
        Promise.all(
          changes
            .map(async ([key, name, detail]) => {
              const step = apply(await s.get(key), name, detail);
              await write(s, key, step);
              return step;
            })
            .map((change) =>
              change.then(
                (step) => ({ step }),
                (error) => ({ error }),
              ),
            ),
        ),
      ),
    /** Adds a new entry's record, or gives back the entry the store holds of its plant's id. */
    insert: (record) =>
      run('strict', async (s) => {
        const { key, id } = JSON.parse(record);
        const step = apply(await s.byId(id), 'add', record);
        await write(s, key, step);
        return step;
      }),
    get: (key) => run(false, (s) => s.get(key)),
    load: () => run(false, (s) => s.load()),
    /** The keys of the entries that `take` (its detail) would take now, in the order they were added. */
    due: (take) =>
      run(false, async (s) =>
        (await s.active())
          .filter((raw) => apply(raw, 'take', take)[0] === 'put')
          .sort((a, b) => a.addedAt - b.addedAt)
          .map((raw) => raw.key),
      ),
    /**
     * Removes the created entries whose retention is over at `now`: their keys, and the next expiry
     * after `now` (one that came while the purge ran included; none that it let stay, which would
     * bring it back at once).
     */
    purge: () =>
      run('relaxed', async (s) => {
        const [removed, now] = [[], Date.now()];
        for (const raw of await s.expired(now)) {
          if (apply(raw, 'expire')[0] !== 'delete') continue;
          await s.delete(raw.key);
          removed.push(raw.key);
        }
        return { removed, next: await s.next(now) };
      }),
  });
}

async function database(name, rules) {
  let factory, request;
  try {
    factory = globalThis.indexedDB;
  } catch (cause) {
    throw failed('open IndexedDB', cause);
  }
  if (!factory)
    throw new PlantStoreError(
      'config',
      'this runtime has no IndexedDB; pass options.store (a MemoryStore keeps the entries of one process)',
    );
  const db = await new Promise((resolve, reject) => {
    request = factory.open(`plant-store-outbox:${name}`, VERSION);
    request.onupgradeneeded = ({ oldVersion }) =>
      upgrade(request.result, request.transaction, oldVersion, rules);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject('blocked');
  }).catch((cause) => {
    // A blocked upgrade stays queued: what it opens once the other page lets go is closed at once.
    if (request) request.onsuccess = () => request.result.close();
    if (cause === 'blocked') {
      throw new PlantStoreError(
        'config',
        "the outbox's database is open in another tab of an older release of this app, which keeps " +
          'it from being upgraded: close or reload that tab, then open the outbox again',
      );
    }
    if (cause?.name === 'VersionError') {
      throw new PlantStoreError(
        'config',
        "the outbox's database was made by a newer release of this app: reload the page to run that release",
        { cause },
      );
    }
    throw new PlantStoreError(
      'config',
      `IndexedDB refused to open: ${said(cause)}; where it is not allowed (a sandboxed frame, ` +
        'blocked storage), pass options.store',
      { cause },
    );
  });
  const open = new Set();
  let left = false;
  const backend = {
    shared: true,
    /**
     * `work(s)` in one transaction, writing with the durability `write` asks (`strict` for an add: on disk
     * before it resolves; `relaxed` for the rest, which a power cut may undo: an entry's key makes that safe).
     */
    run(write, work) {
      if (left)
        return Promise.reject(
          new DOMException('the page left: it writes again once it is back', 'AbortError'),
        );
      const tx = db.transaction('entries', write ? 'readwrite' : 'readonly', {
        durability: write || 'default',
      });
      const entries = tx.objectStore('entries');
      // A request that fails fails its change alone: the transaction goes on with the others.
      const ask = (request) =>
        new Promise((resolve, reject) => {
          request.onsuccess = () => resolve(request.result);
          request.onerror = (event) => reject(request.error, event.preventDefault());
        });
      const index = (name, range, direction) => entries.index(name).openCursor(range, direction);
      const done = new Promise((resolve, reject) => {
        tx.oncomplete = resolve;
        tx.onabort = () =>
          reject(
            tx.error ?? new DOMException('the page left while it was being written', 'AbortError'),
          );
      }).finally(() => open.delete(tx));
      open.add(tx);
      const worked = work({
        get: (key) => ask(entries.get(key)),
        byId: (id) => ask(entries.index('id').get(id)),
        put: (record) => ask(entries.put(record)),
        delete: (key) => ask(entries.delete(key)),
        active: () => ask(entries.index('due').getAll(IDBKeyRange.upperBound(NEVER, true))),
        expired: (now) => ask(entries.index('expires').getAll(IDBKeyRange.upperBound(now))),
        /** The earliest expiry after `now`, asked after the purge's deletes. */
        next: async (now) => (await ask(index('expires', IDBKeyRange.lowerBound(now, true))))?.key,
        /** The entries not created, and the newest created ones. */
        load: () =>
          new Promise((resolve, reject) => {
            const loaded = [];
            const cursor = index('expires', null, 'prev');
            cursor.onerror = () => reject(cursor.error);
            cursor.onsuccess = () => {
              if (cursor.result && loaded.length < CREATED_SHOWN) {
                loaded.push(cursor.result.value);
                cursor.result.continue();
                return;
              }
              ask(entries.index('due').getAll()).then(
                (active) => resolve(active.concat(loaded)),
                reject,
              );
            };
          }),
      });
      worked.catch(() => {
        try {
          tx.abort();
        } catch {
          /* it had ended */
        }
      });
      return Promise.all([worked, done]).then(([result]) => result);
    },
    /** Ends every transaction under way, and begins none until `back()`: a page frozen or cached keeps none open. */
    leave() {
      left = true;
      open.forEach((tx) => {
        try {
          tx.abort();
        } catch {
          /* it had just ended */
        }
      });
    },
    back() {
      left = false;
    },
    close: () => db.close(),
  };
  db.onversionchange = () =>
    backend.closed?.("another page opened a newer version of the outbox's database");
  db.onclose = () =>
    backend.closed?.("the browser closed the outbox's database (storage cleared, or a disk error)");
  return backend;
}

/** Creates or upgrades the database from `old` (0: none): each record of an older release rewritten by Rust. */
function upgrade(db, tx, old, rules) {
  const entries =
    old < 1 ? db.createObjectStore('entries', { keyPath: 'key' }) : tx.objectStore('entries');
  for (const index of [...entries.indexNames]) entries.deleteIndex(index);
  if (db.objectStoreNames.contains('lease')) db.deleteObjectStore('lease');
  entries.createIndex('id', 'id', { unique: true });
  entries.createIndex('due', 'dueAt');
  entries.createIndex('expires', 'expiresAt');
  entries.openCursor().onsuccess = ({ target: { result: cursor } }) => {
    if (!cursor) return;
    const migrate = (detail) => rules.apply(text(cursor.value), 'migrate', detail);
    const [kind, record] = migrate('');
    if (kind === 'aside') {
      // One it cannot read stays as it is, where a load finds it and lists it.
      cursor.update({ ...cursor.value, dueAt: NEVER }).onerror = (event) => event.preventDefault();
    } else {
      // A second entry of one plant id (an older release let it in) keeps its place, not the id.
      entries.put(JSON.parse(record)).onerror = (event) => {
        event.preventDefault();
        entries.put(JSON.parse(migrate('duplicate')[1]));
      };
    }
    cursor.continue();
  };
}

/** A store of the app's, one outbox's: its changes are made one at a time (the outbox's turn). */
function app(store) {
  if (!['getAll', 'put', 'delete'].every((method) => typeof store?.[method] === 'function')) {
    throw new PlantStoreError(
      'config',
      'options.store must have the methods getAll(), put(record) and delete(key), each returning a promise',
    );
  }
  const all = async () => {
    const records = await store.getAll();
    if (!Array.isArray(records)) throw new TypeError('getAll() did not give an array');
    return records;
  };
  const s = {
    // A get that answers null for no record (as some stores do) answers as the interface says.
    get: async (key) =>
      store.get
        ? ((await store.get(key)) ?? undefined)
        : (await all()).find((record) => record?.key === key),
    byId: async (id) => (await all()).find((record) => record?.id === id),
    put: (record) => store.put(record),
    delete: (key) => store.delete(key),
    active: all,
    expired: all,
    /** The earliest expiry after `now`, as IndexedDB's index gives it. */
    next: async (now) =>
      (await all())
        .map((record) => record?.expiresAt)
        .filter((at) => Number.isFinite(at) && at > now)
        .reduce((a, b) => Math.min(a, b), Infinity),
    load: all,
  };
  let last = Promise.resolve();
  return {
    shared: false,
    run: (_write, work) => (last = last.catch(() => {}).then(() => work(s))),
    leave() {},
    back() {},
    close() {},
  };
}
