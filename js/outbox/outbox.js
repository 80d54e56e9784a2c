// The outbox's JS shell: `PlantOutbox`, the app's object, and the `Shell` that does what Rust asks
// (src/outbox/driver.rs), one action at a time through `perform`, telling Rust what came of it
// through `core.input`. It holds what the platform gives (the database, the Web Locks, the channel,
// the timer, the listeners) and no rule: when to send, what to take, what a record becomes and what
// the app sees are Rust's. The platform is `globalThis` unless the app gives another.

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
  const shell = new Shell(core, platform, outbox, listeners);
  return core.input({ type: 'open', shell }).then(() => outbox);
}

export class PlantOutbox extends EventTarget {
  #core;
  #listeners;

  constructor(opening, core, listeners) {
    if (opening !== OPENING)
      throw new TypeError('PlantOutbox: use `await PlantOutbox.open(options)`');
    super();
    [this.#core, this.#listeners] = [core, listeners];
  }

  /** Validates `plant`, then resolves to its entry once it is durably stored. */
  add(plant) {
    return this.#core.input({ type: 'add', plant });
  }

  /** The entries this tab holds, in the order they were added: the same array until one changes. */
  entries = () => this.#core.entries();

  /** Calls `listener` after each change; returns what stops it (React's `useSyncExternalStore`). */
  subscribe = (listener) => {
    const subscription = { listener };
    this.#listeners.add(subscription);
    return () => this.#listeners.delete(subscription);
  };

  /** The entry of `key` as the store holds it now. */
  get(key) {
    return this.#core.input({ type: 'get', key: String(key) });
  }

  unreadable() {
    return this.#core.unreadable();
  }

  flush() {
    return this.#core.input({ type: 'flush' });
  }

  retry(key) {
    return this.#core.input({ type: 'retry', key: String(key) });
  }

  markCreated(key) {
    return this.#core.input({ type: 'markCreated', key: String(key) });
  }

  remove(key) {
    return this.#core.input({ type: 'remove', key: String(key) });
  }

  pause() {
    this.#core.input({ type: 'pause' });
  }

  resume() {
    this.#core.input({ type: 'resume' });
  }

  close() {
    this.#core.input({ type: 'close' });
  }
}

/** What the platform does for Rust: `perform(action)` does one `OutboxAction`. */
class Shell {
  #core;
  #platform;
  #outbox;
  #listeners;
  #db;
  /** The writes under way, by number; the transactions `abandon` aborts; the locks, by `tab`. */
  #writes = new Map();
  #open = new Set();
  #locks = {};
  #channel;
  #timer;
  #listening = [];

  constructor(core, platform, outbox, listeners) {
    [this.#core, this.#platform, this.#outbox, this.#listeners] = [
      core,
      platform,
      outbox,
      listeners,
    ];
  }

  #tell = (input) => this.#core.input(input);

  perform(action) {
    const { n } = action;
    const { IDBKeyRange: range, navigator } = this.#platform;
    switch (action.type) {
      case 'open':
        return this.#openDatabase(action);
      case 'read':
        return this.#read(
          n,
          (entries) =>
            action.keys?.map((key) => entries.get(key)) ?? [load(entries, action.created)],
          (records) => ({ type: 'read', records: action.keys ? records : records[0] }),
        );
      case 'feed':
        return this.#read(
          n,
          (entries) => [
            entries.index('due').getAllKeys(range.upperBound(action.until)),
            action.locks ? navigator.locks.query() : undefined,
          ],
          ([keys, locks]) => ({ type: 'fed', keys, locks: locks?.held.map((lock) => lock.name) }),
        );
      case 'purge':
        return this.#read(
          n,
          (entries) => [purge(entries.index('expires'), range, action.now)],
          ([[keys, next]]) => ({ type: 'purged', keys, next }),
          'readwrite',
        );
      case 'write':
        return this.#write(action);
      case 'apply':
        return this.#apply(action);
      case 'insert':
        return this.#insert(action);
      case 'abandon':
        for (const tx of this.#open) abort(tx);
        return;
      case 'shut':
        return this.#shut();
      case 'lock':
        this.#locks[action.tab] = lock(navigator?.locks, action.name, action.tab, this.#tell);
        return;
      case 'release':
        this.#locks[action.tab]?.();
        this.#locks[action.tab] = undefined;
        return;
      case 'post':
        return this.#channel?.postMessage(action.hint);
      case 'arm':
        clearTimeout(this.#timer);
        if (action.ms !== undefined)
          this.#timer = setTimeout(() => this.#tell({ type: 'timer' }), action.ms);
        return;
      case 'changed':
        return this.#changed(action.detail);
      case 'closed':
        return this.#outbox.dispatchEvent(new CustomEvent('close', { detail: action.why }));
    }
  }

  #openDatabase({ n, name }) {
    const factory = this.#platform.indexedDB;
    if (!factory) return this.#tell({ type: 'failed', n });
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
      this.#tell({ type: 'opened', n });
    };
    request.onerror = () => this.#tell({ type: 'failed', n, cause: request.error });
    request.onblocked = (event) => {
      // A blocked upgrade stays queued: what it opens once the other page lets go is closed at once.
      request.onsuccess = () => request.result.close();
      this.#tell({ type: 'failed', n, cause: event });
    };
  }

  /** A transaction of the store `entries`, kept until it ends (for `abandon`); `done` settles with it. */
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

  /** Asks in one transaction what `work` asks (requests or promises), then tells what `told` makes of the results. */
  #read(n, work, told, mode = 'readonly') {
    try {
      const [entries, done] = this.#transaction(mode, 'relaxed');
      const asked = work(entries).map((each) =>
        typeof each?.then === 'function' ? each : ask(each),
      );
      Promise.all([Promise.all(asked), done]).then(
        ([results]) => this.#tell({ ...told(results), n }),
        (cause) => this.#tell({ type: 'failed', n, cause }),
      );
    } catch (cause) {
      this.#tell({ type: 'failed', n, cause });
    }
  }

  /** Reads each record the write names, and tells them: Rust says what to put in their place (`apply`). */
  #write({ n, keys, byId, strict }) {
    try {
      const [entries, done] = this.#transaction('readwrite', strict ? 'strict' : 'relaxed');
      const [failures, records] = [keys.map(() => undefined), []];
      this.#writes.set(n, { entries, failures, records });
      let left = keys.length;
      for (const [i, key] of keys.entries()) {
        const request = (byId ? entries.index('id') : entries).get(key);
        request.onsuccess = () => {
          records[i] = request.result;
          if (--left === 0) this.#tell({ type: 'read', n, records });
        };
      }
      done
        .then(
          () => this.#tell({ type: 'written', n, failures }),
          (cause) => this.#tell({ type: 'written', n, failures: keys.map(() => cause) }),
        )
        .finally(() => this.#writes.delete(n));
    } catch (cause) {
      this.#tell({ type: 'failed', n, cause });
    }
  }

  /** Puts what Rust made of the records a write read: a record, null to delete it, undefined to leave it. */
  #apply({ n, records }) {
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
  #insert({ n, record }) {
    const written = (failure) => this.#tell({ type: 'written', n, failures: [failure] });
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

  /** Listens to the page, the network and the other tabs (what each event means is Rust's). */
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

  #event = (event) => this.#tell({ type: 'event', event });

  /** An entry changed, or was removed (`detail`), or a record was set aside (none). */
  #changed(detail) {
    if (detail !== undefined) this.#outbox.dispatchEvent(new CustomEvent('change', { detail }));
    // A listener that throws is reported as an event listener's error is, and stops nothing.
    for (const { listener } of [...this.#listeners]) {
      try {
        listener();
      } catch (error) {
        report(error);
      }
    }
  }

  /** Lets go of everything: the listeners, the channel, the locks, the timer, the database. */
  #shut() {
    for (const [target, type] of this.#listening) target.removeEventListener(type, this.#event);
    this.#channel?.close();
    for (const release of Object.values(this.#locks)) release?.();
    clearTimeout(this.#timer);
    this.#db?.close();
  }
}

/** The result of an IndexedDB `request`; one that fails fails alone, not its transaction. */
function ask(request) {
  return new Promise((resolve, reject) => {
    if (!request) return resolve(request);
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

/** Deletes the records whose `expires` is `now` or before: their keys, and the next expiry. */
function purge(expires, range, now) {
  const keys = [];
  return walk(expires.openCursor(range.upperBound(now)), (cursor) => {
    keys.push(cursor.primaryKey);
    cursor.delete();
    return true;
  })
    .then(() => ask(expires.openKeyCursor(range.lowerBound(now, true))))
    .then((next) => [keys, next?.key]);
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
 * Asks `locks` (a LockManager) for the Web Lock `name`, telling `granted` once it is held and
 * `refused` if the request fails. Gives what lets it go, or drops the request.
 */
function lock(locks, name, tab, tell) {
  if (!locks) return undefined;
  const asked = new AbortController();
  let release;
  const held = () =>
    new Promise((resolve) => {
      release = resolve;
      if (asked.signal.aborted) resolve();
      else tell({ type: 'granted', tab });
    });
  locks.request(name, { signal: asked.signal }, held).catch((cause) => {
    if (!asked.signal.aborted) tell({ type: 'refused', tab, cause });
  });
  return () => {
    asked.abort();
    release?.();
  };
}
