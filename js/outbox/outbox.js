// The outbox's JS shell: `PlantOutbox`, the app's object, and the shell that does what Rust asks
// (src/outbox/seam.rs), one action at a time through `perform(type, n, a, b)`, telling Rust what
// came of it through `core.input(type, n, a, b)` (both typed in seam.d.ts). It holds what the
// platform gives (the database, the Web Locks, the channel, the timer, the listeners) and no rule:
// when to send, what to take, what a record becomes and what the app sees are Rust's.

const OPENING = Symbol('PlantOutbox.open');
const report =
  globalThis.reportError ??
  ((error) =>
    setTimeout(() => {
      throw error;
    }));

/** Opens the outbox of Rust's `core` on `platform`: resolves to its PlantOutbox once it is read. */
export function open(core, platform) {
  const listeners = new Set();
  const outbox = new PlantOutbox(OPENING, core, listeners);
  const shell = new Shell(core, platform, (detail) => changed(outbox, listeners, detail), outbox);
  return core.input('open', 0, shell).then(() => outbox);
}

/** The app's outbox: each method a bound function, that calls Rust's `core`. */
export class PlantOutbox extends EventTarget {
  #core;
  #listeners;

  constructor(opening, core, listeners) {
    if (opening !== OPENING)
      throw new TypeError('PlantOutbox: use `await PlantOutbox.open(options)`');
    super();
    [this.#core, this.#listeners] = [core, listeners];
  }

  add = (plant) => this.#core.input('add', 0, plant);
  entries = () => this.#core.entries();
  subscribe = (listener) => {
    const subscription = { listener };
    this.#listeners.add(subscription);
    return () => this.#listeners.delete(subscription);
  };
  get = (key) => this.#core.input('get', 0, String(key));
  unreadable = () => this.#core.unreadable();
  flush = () => this.#core.input('flush');
  retry = (key) => this.#core.input('retry', 0, String(key));
  markCreated = (key) => this.#core.input('markCreated', 0, String(key));
  remove = (key) => this.#core.input('remove', 0, String(key));
  pause = () => void this.#core.input('pause');
  resume = () => void this.#core.input('resume');
  close = () => void this.#core.input('close');
}

/** An entry changed, or was removed (`detail`), or a record was set aside (none): the app is told. */
function changed(outbox, listeners, detail) {
  if (detail !== undefined) outbox.dispatchEvent(new CustomEvent('change', { detail }));
  // A listener that throws is reported as an event listener's error is, and stops nothing.
  for (const { listener } of [...listeners]) {
    try {
      listener();
    } catch (error) {
      report(error);
    }
  }
}

/** What the platform does for Rust: `perform(type, n, a, b)` does one `OutboxAction`. */
class Shell {
  #core;
  #platform;
  #changed;
  #outbox;
  #db;
  /** The writes under way by number; the transactions `abandon` aborts; the Web Locks, by `tab`. */
  #writes = new Map();
  #open = new Set();
  #locks = [];
  #channel;
  #timer;
  #listening = [];

  constructor(core, platform, changed, outbox) {
    [this.#core, this.#platform, this.#changed, this.#outbox] = [core, platform, changed, outbox];
  }

  #tell = (type, n, a, b) => this.#core.input(type, n, a, b);

  perform(type, n, a, b) {
    const { IDBKeyRange: range, navigator } = this.#platform;
    switch (type) {
      case 'open':
        return this.#openDatabase(n, a);
      case 'read':
        return this.#read(n, 'read', (entries) => [
          a ? Promise.all(a.map((key) => ask(entries.get(key)))) : load(entries, b),
        ]);
      case 'feed': {
        const locks =
          b && navigator.locks.query().then(({ held }) => held.map((lock) => lock.name));
        return this.#read(n, 'fed', (entries) => [
          entries.index('due').getAllKeys(range.upperBound(a)),
          locks || undefined,
        ]);
      }
      case 'purge':
        return this.#read(
          n,
          'purged',
          (entries) => purge(entries.index('expires'), range, a),
          'readwrite',
        );
      case 'write':
        return this.#write(n, a, b);
      case 'apply':
        return this.#apply(n, a);
      case 'insert':
        return this.#insert(n, a);
      case 'abandon':
        for (const tx of this.#open) abort(tx);
        return;
      case 'shut':
        return this.#shut();
      case 'lock':
        this.#locks[n] = lock(navigator?.locks, a, n, this.#tell);
        return;
      case 'release':
        this.#locks[n]?.();
        this.#locks[n] = undefined;
        return;
      case 'post':
        return this.#channel?.postMessage(a);
      case 'arm':
        clearTimeout(this.#timer);
        if (a !== undefined) this.#timer = setTimeout(() => this.#tell('timer'), a);
        return;
      case 'changed':
        return this.#changed(a);
      case 'closed':
        return this.#outbox.dispatchEvent(new CustomEvent('close', { detail: a }));
    }
  }

  #openDatabase(n, name) {
    const factory = this.#platform.indexedDB;
    if (!factory) return this.#tell('failed', n);
    const request = factory.open(name, 1);
    request.onupgradeneeded = () => {
      const entries = request.result.createObjectStore('entries', { keyPath: 'key' });
      entries.createIndex('id', 'id', { unique: true });
      entries.createIndex('due', 'dueAt');
      entries.createIndex('expires', 'expiresAt');
    };
    request.onsuccess = () => {
      this.#db = request.result;
      this.#db.onversionchange = this.#db.onclose = this.#event;
      this.#listen();
      this.#tell('opened', n);
    };
    request.onerror = () => this.#tell('failed', n, request.error);
    request.onblocked = (event) => {
      // A blocked upgrade stays queued: what it opens once the other page lets go is closed at once.
      request.onsuccess = () => request.result.close();
      this.#tell('failed', n, event);
    };
  }

  /** A transaction of the store `entries` (`abandon` aborts it while it runs): the store, and its end. */
  #transaction(mode, durability) {
    const tx = this.#db.transaction('entries', mode, { durability });
    const done = new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onabort = () => reject(tx.error ?? new DOMException('the page let go', 'AbortError'));
    });
    this.#open.add(tx);
    done.catch(() => {}).finally(() => this.#open.delete(tx));
    return [tx.objectStore('entries'), done];
  }

  /** Asks in one transaction what `work` asks (requests or promises), then tells `type` with what each gave. */
  #read(n, type, work, mode = 'readonly') {
    try {
      const [entries, done] = this.#transaction(mode, 'relaxed');
      const asked = work(entries).map((each) => (each?.then ? each : ask(each)));
      Promise.all([Promise.all(asked), done]).then(
        ([results]) => this.#tell(type, n, ...results),
        (cause) => this.#tell('failed', n, cause),
      );
    } catch (cause) {
      this.#tell('failed', n, cause);
    }
  }

  /** Reads each record a write names (by key, or an add's by plant id) and tells them: `apply` puts what Rust makes of them. */
  #write(n, keys, byId) {
    try {
      const [entries, done] = this.#transaction('readwrite', byId ? 'strict' : 'relaxed');
      const source = byId ? entries.index('id') : entries;
      const write = { entries, failures: keys.map(() => undefined) };
      this.#writes.set(n, write);
      // A read that fails is the write's failure, told when the transaction ends.
      Promise.all(keys.map((key) => ask(source.get(key)))).then(
        (records) => {
          write.records = records;
          this.#tell('read', n, records);
        },
        () => {},
      );
      done.then(
        () => this.#tell('written', n, write.failures),
        (cause) =>
          this.#tell(
            'written',
            n,
            keys.map(() => cause),
          ),
      );
      done.finally(() => this.#writes.delete(n)).catch(() => {});
    } catch (cause) {
      this.#tell('failed', n, cause);
    }
  }

  /** Puts what Rust made of the records a write read: a record, null to delete it, undefined to leave it. */
  #apply(n, records) {
    const { entries, failures, records: read } = this.#writes.get(n);
    for (const [i, record] of records.entries()) {
      if (record === undefined) continue;
      try {
        const request = record === null ? entries.delete(read[i].key) : entries.put(record);
        request.onerror = (event) => {
          event.preventDefault(); // a request that fails fails its record alone
          failures[i] = request.error;
        };
      } catch (cause) {
        failures[i] = cause;
      }
    }
  }

  /** A new record, written and committed as it is made (never abandoned: a page that leaves keeps it). */
  #insert(n, record) {
    const written = (failure) => this.#tell('written', n, [failure]);
    try {
      const tx = this.#db.transaction('entries', 'readwrite', { durability: 'strict' });
      const request = tx.objectStore('entries').add(record);
      tx.commit?.();
      request.onerror = (event) => event.preventDefault();
      tx.oncomplete = () => written(request.error ?? undefined);
      tx.onabort = () => written(tx.error ?? request.error);
    } catch (cause) {
      written(cause);
    }
  }

  /** Listens to the page, the network and the other tabs: what each event means is Rust's. */
  #listen() {
    const { document, BroadcastChannel } = this.#platform;
    for (const [target, types] of [
      [document, ['visibilitychange', 'freeze', 'resume']],
      [this.#platform, ['pagehide', 'pageshow', 'online', 'offline']],
    ]) {
      if (typeof target?.addEventListener !== 'function') continue;
      for (const type of types) {
        target.addEventListener(type, this.#event);
        this.#listening.push([target, type]);
      }
    }
    if (typeof BroadcastChannel === 'function') {
      this.#channel = new BroadcastChannel(this.#db.name);
      this.#channel.onmessage = this.#event;
    }
  }

  #event = (event) => this.#tell('event', 0, event);

  /** Lets go of everything: the listeners, the channel, the locks, the timer, the database. */
  #shut() {
    for (const [target, type] of this.#listening) target.removeEventListener(type, this.#event);
    this.#channel?.close();
    for (const release of this.#locks) release?.();
    clearTimeout(this.#timer);
    this.#db?.close();
  }
}

/** The result of an IndexedDB `request` (none: undefined); one that fails fails alone, not its transaction. */
function ask(request) {
  return new Promise((resolve, reject) => {
    if (!request) return resolve();
    request.onsuccess = () => resolve(request.result);
    request.onerror = (event) => {
      event.preventDefault();
      reject(request.error);
    };
  });
}

/** Every record not created, then the newest `created` created ones. */
function load(entries, created) {
  const newest = [];
  const walked = walk(entries.index('expires').openCursor(null, 'prev'), (cursor) => {
    newest.push(cursor.value);
    return newest.length < created;
  });
  return Promise.all([ask(entries.index('due').getAll()), walked]).then(([active]) =>
    active.concat(newest),
  );
}

/** Deletes the records whose expiry is `now` or before: their keys, and the next expiry. */
function purge(expires, range, now) {
  const keys = [];
  const walked = walk(expires.openCursor(range.upperBound(now)), (cursor) => {
    keys.push(cursor.primaryKey);
    cursor.delete();
    return true;
  });
  const next = walked.then(() => ask(expires.openKeyCursor(range.lowerBound(now, true))));
  return [walked.then(() => keys), next.then((cursor) => cursor?.key)];
}

/** Walks `request`'s cursor while `each(cursor)` says to go on. */
function walk(request, each) {
  return new Promise((resolve, reject) => {
    request.onerror = () => reject(request.error);
    request.onsuccess = () => {
      const cursor = request.result;
      if (cursor && each(cursor)) cursor.continue();
      else resolve();
    };
  });
}

function abort(tx) {
  try {
    tx.abort();
  } catch {
    // it had ended
  }
}

/**
 * Asks `locks` (a LockManager) for the Web Lock `name` (`tab`: 1 for this tab's own), telling
 * `granted` once it is held, `refused` if the request fails. Gives what lets it go, or drops the
 * request.
 */
function lock(locks, name, tab, tell) {
  if (!locks) return undefined;
  const asked = new AbortController();
  let release;
  const held = () =>
    new Promise((resolve) => {
      release = resolve;
      if (asked.signal.aborted) resolve();
      else tell('granted', tab);
    });
  locks.request(name, { signal: asked.signal }, held).catch((cause) => {
    if (!asked.signal.aborted) tell('refused', tab, cause);
  });
  return () => {
    asked.abort();
    release?.();
  };
}
