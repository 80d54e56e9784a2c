// Where an outbox's records live: the IndexedDB database `plant-store-outbox:<name>`, or a store
// of the app's (`getAll`, `put`, `delete`, and `get` if it has one). It moves records and holds no
// rule: each change reads the records it names and writes what Rust's `apply` makes of them (an
// object to put, null to delete, undefined to leave), all in one readwrite transaction (in a store
// of the app's, in the outbox's turn: one change at a time). Records are plain objects whose schema
// is Rust's (src/outbox/record.rs); the shell never looks inside one but for the indexes' fields.

/** Version 3 has the indexes `id` (unique), `due` and `expires`. */
const VERSION = 3;

/**
 * Opens the app's `store`, else the IndexedDB database of `platform` (rejecting with undefined when
 * it has none, with the `blocked` event when another tab holds an older version open, else with
 * IndexedDB's error). An upgrade rewrites each record with `migrate(record, duplicate)`.
 */
export async function openStore(platform, name, store, migrate) {
  return store === undefined ? database(platform, name, migrate) : app(store);
}

/**
 * The store's verbs over `run(strict, work)`, which runs `work(s)` in one transaction, and
 * `insert(record)`, which writes a new record at once if none holds its key or plant's id.
 */
function verbs(run, insert, extra) {
  return {
    /** Every record not created, and the newest `created` created ones. */
    load: (created) => run(undefined, (s) => s.load(created)),
    get: (key) => run(undefined, (s) => s.get(key)),
    /** The keys of the records due by `until`, the earliest first. */
    due: (until) => run(undefined, (s) => s.due(until)),
    /** The keys of the records whose retention is over at `now`. */
    expired: (now) => run(undefined, (s) => s.expired(now)),
    /** The earliest expiry after `now`. */
    next: (now) => run(undefined, (s) => s.next(now)),
    /**
     * Reads the record of each target (a key, or with `byId` a plant's id), and writes what
     * `apply(i, record)` makes of it: the failure of each (undefined where it was written).
     */
    change: async (targets, byId, apply, strict) => {
      // An add is written at once, as if the store held nothing of its plant's id, in a
      // transaction committed as it is made: a page that leaves as it adds still keeps it. Only
      // when the store holds one is it read, and the table applied to that.
      if (byId && insert && (await insert(apply(0, undefined)))) return [undefined];
      return run(strict ? 'strict' : 'relaxed', (s) =>
        Promise.all(
          targets.map(async (target, i) => {
            try {
              const next = apply(i, await (byId ? s.byId(target) : s.get(target)));
              if (next === null) await s.delete(target);
              else if (next !== undefined) await s.put(next);
            } catch (failure) {
              return failure;
            }
          }),
        ),
      );
    },
    ...extra,
  };
}

async function database(platform, name, migrate) {
  const factory = platform.indexedDB;
  if (!factory) throw undefined;
  let request;
  const db = await new Promise((resolve, reject) => {
    request = factory.open(name, VERSION);
    request.onupgradeneeded = ({ oldVersion }) =>
      upgrade(request.result, request.transaction, oldVersion, migrate);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    request.onblocked = reject;
  }).catch((cause) => {
    // A blocked upgrade stays queued: what it opens once the other page lets go is closed at once.
    if (request) request.onsuccess = () => request.result.close();
    throw cause;
  });
  /** The transactions under way, but the adds': a frozen page ends them. */
  const open = new Set();
  let suspended = false;
  const { IDBKeyRange } = platform;
  // One transaction: `strict` (an add: on disk before it resolves), `relaxed` (the rest, which a
  // power cut may undo: an entry's key makes that safe), or read only.
  const run = (write, work) => {
    // A frozen page writes only adds, which are short: the app's data is never dropped.
    if (suspended && write !== 'strict') {
      return Promise.reject(new DOMException('the page is frozen', 'AbortError'));
    }
    let tx;
    try {
      tx = db.transaction('entries', write ? 'readwrite' : 'readonly', {
        durability: write ?? 'default',
      });
    } catch (cause) {
      return Promise.reject(cause); // the database closed
    }
    const entries = tx.objectStore('entries');
    // A request that fails fails its change alone: the transaction goes on with the others.
    const ask = (request) =>
      new Promise((resolve, reject) => {
        request.onsuccess = () => resolve(request.result);
        request.onerror = (event) => {
          event.preventDefault();
          reject(request.error);
        };
      });
    const done = new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onabort = () => reject(tx.error ?? new DOMException('the page froze', 'AbortError'));
    }).finally(() => open.delete(tx));
    if (write !== 'strict') open.add(tx);
    const below = (until) => IDBKeyRange.upperBound(until);
    const worked = work({
      get: (key) => ask(entries.get(key)),
      byId: (id) => ask(entries.index('id').get(id)),
      put: (record) => ask(entries.put(record)),
      delete: (key) => ask(entries.delete(key)),
      due: (until) => ask(entries.index('due').getAllKeys(below(until))),
      expired: (now) => ask(entries.index('expires').getAllKeys(below(now))),
      next: async (now) => {
        const cursor = await ask(
          entries.index('expires').openKeyCursor(IDBKeyRange.lowerBound(now, true)),
        );
        return cursor?.key;
      },
      load: async (created) => {
        const active = ask(entries.index('due').getAll());
        const newest = [];
        const cursor = entries.index('expires').openCursor(null, 'prev');
        await new Promise((resolve, reject) => {
          cursor.onerror = () => reject(cursor.error);
          cursor.onsuccess = () => {
            if (!cursor.result || newest.length >= created) return resolve();
            newest.push(cursor.result.value);
            cursor.result.continue();
          };
        });
        return (await active).concat(newest);
      },
    });
    worked.catch(() => {
      try {
        tx.abort();
      } catch {
        // it had ended
      }
    });
    return Promise.all([worked, done]).then(([result]) => result);
  };
  /** A new record written and committed as it is made: false when its key or plant's id is held. */
  const insert = (record) =>
    new Promise((resolve, reject) => {
      const tx = db.transaction('entries', 'readwrite', { durability: 'strict' });
      const request = tx.objectStore('entries').add(record);
      tx.commit?.();
      let held = false;
      request.onerror = (event) => {
        held = request.error?.name === 'ConstraintError';
        event.preventDefault();
      };
      tx.oncomplete = () => resolve(!held);
      tx.onabort = () => (held ? resolve(false) : reject(tx.error ?? request.error));
    });
  const store = verbs(run, insert, {
    /** Ends the transactions under way, and begins none until `resume()` but adds': a frozen page keeps none of its own open. */
    suspend() {
      suspended = true;
      for (const tx of open) {
        try {
          tx.abort();
        } catch {
          // it had just ended
        }
      }
    },
    resume() {
      suspended = false;
    },
    close: () => db.close(),
  });
  db.onversionchange = (event) => store.closed?.(event);
  db.onclose = (event) => store.closed?.(event);
  return store;
}

/** Creates or upgrades the database from `old` (0: none): each record of an older release rewritten by Rust. */
function upgrade(db, tx, old, migrate) {
  const entries =
    old < 1 ? db.createObjectStore('entries', { keyPath: 'key' }) : tx.objectStore('entries');
  for (const index of [...entries.indexNames]) entries.deleteIndex(index);
  if (db.objectStoreNames.contains('lease')) db.deleteObjectStore('lease');
  entries.createIndex('id', 'id', { unique: true });
  entries.createIndex('due', 'dueAt');
  entries.createIndex('expires', 'expiresAt');
  entries.openCursor().onsuccess = ({ target: { result: cursor } }) => {
    if (!cursor) return;
    const record = cursor.value;
    // A second entry of one plant id (an older release let it in) keeps its place, not the id.
    entries.put(migrate(record, false)).onerror = (event) => {
      event.preventDefault();
      entries.put(migrate(record, true)).onerror = (again) => again.preventDefault();
    };
    cursor.continue();
  };
}

/** A store of the app's, one outbox's: its changes are made one at a time (the outbox's turn). */
function app(store) {
  const all = async () => {
    const records = await store.getAll();
    if (!Array.isArray(records)) throw new TypeError('getAll() did not give an array');
    return records;
  };
  /** The keys of the records whose `field` is at most `until`, by it: what an IndexedDB index gives. */
  const upTo = async (field, until) =>
    (await all())
      .filter((record) => record?.[field] <= until)
      .sort((a, b) => a[field] - b[field])
      .map((record) => record.key);
  const s = {
    // A get that answers null for no record (as some stores do) answers as the interface says.
    get: async (key) =>
      store.get
        ? ((await store.get(key)) ?? undefined)
        : (await all()).find((record) => record?.key === key),
    byId: async (id) => (await all()).find((record) => record?.id === id),
    put: (record) => store.put(record),
    delete: (key) => store.delete(key),
    due: (until) => upTo('dueAt', until),
    expired: (now) => upTo('expiresAt', now),
    next: async (now) => {
      const later = (await all()).map((record) => record?.expiresAt).filter((at) => at > now);
      return later.length ? Math.min(...later) : undefined;
    },
    load: all,
  };
  let last = Promise.resolve();
  const run = (_write, work) => {
    last = last.catch(() => {}).then(() => work(s));
    return last;
  };
  return verbs(run, undefined, { suspend() {}, resume() {}, close() {} });
}
