// The outbox's shell: it does what Rust asks (src/outbox/seam.rs) through `perform(type, n, a, b)`
// and tells what came of it through `core.input(type, n, a, b)` (both typed in seam.d.ts). It holds
// what the platform gives (the database, the Web Locks, the channel, the timer, the listeners) and
// no rule: when to send, what to take, what a record becomes and what the app sees are Rust's.
import { abort, ask, load, noop, purge, upTo } from './idb.js';

/** `perform(type, n, a, b)` does one `OutboxAction` on the platform Rust resolved (`core.platform`). */
export class Shell {
  #core;
  #platform;
  #told;
  #db;
  /** The writes under way, by number; the transactions `abandon` aborts; the Web Locks, by `tab`. */
  #writes = new Map();
  #open = new Set();
  #locks = [];
  #channel;
  #timer;
  #listening = [];

  constructor(core, told) {
    [this.#core, this.#platform, this.#told] = [core, core.platform, told];
  }

  #tell = (type, n, a, b) => this.#core.input(type, n, a, b);

  perform(type, n, a, b) {
    const { navigator } = this.#platform;
    switch (type) {
      case 'open':
        return this.#openDatabase(n, a);
      case 'read':
        return this.#read(n, 'read', (entries) => [
          a ? Promise.all(a.map((key) => ask(entries.get(key)))) : load(entries, b),
        ]);
      case 'feed':
        return this.#read(n, 'fed', (entries) => [
          upTo(entries.index('due'), a),
          b ? navigator.locks.query().then(({ held }) => held.map((lock) => lock.name)) : undefined,
        ]);
      case 'purge':
        return this.#read(n, 'purged', (entries) => purge(entries, a, b), 'readwrite');
      case 'write':
        return this.#write(n, a, b);
      case 'apply':
        return this.#apply(this.#writes.get(n), a);
      case 'insert':
        return this.#insert(n, a, b);
      case 'abandon':
        for (const tx of this.#open) abort(tx);
        return;
      case 'shut':
        return this.#shut();
      case 'lock':
        if (n) this.#hear(true);
        this.#locks[n] = lock(navigator?.locks, a, n, this.#tell);
        return;
      case 'release':
        if (n) this.#hear(false);
        return this.#locks[n]?.();
      case 'post': {
        // A tab that let go hears nothing, and still tells.
        const channel = this.#channel ?? this.#newChannel();
        channel?.postMessage(a);
        if (channel !== this.#channel) channel?.close();
        return;
      }
      case 'sync':
        return this.#sync(a);
      case 'arm':
        clearTimeout(this.#timer);
        if (a === undefined) return;
        this.#timer = setTimeout(() => this.#tell('timer'), a);
        this.#timer.unref?.(); // in Node, a timer of the outbox keeps no process alive on its own
        return;
      default:
        return this.#told(type, a); // 'changed', 'closed'
    }
  }

  #openDatabase(n, name) {
    let request;
    try {
      request = this.#platform.indexedDB?.open(name, 1);
    } catch (cause) {
      return this.#tell('failed', n, cause); // a SecurityError, in a sandboxed frame
    }
    if (!request) return this.#tell('failed', n);
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
  }

  /** Runs `work(entries, done)` in a transaction (`abandon` aborts it unless it is an insert's); a failure to begin is told. */
  #transaction(n, mode, durability, insert, work) {
    try {
      const tx = this.#db.transaction('entries', mode, { durability });
      const done = new Promise((resolve, reject) => {
        tx.oncomplete = resolve;
        tx.onabort = () => reject(tx.error ?? new DOMException('the page let go', 'AbortError'));
      });
      if (!insert) this.#open.add(tx);
      done.catch(() => {}).finally(() => this.#open.delete(tx));
      work(tx.objectStore('entries'), done, tx);
    } catch (cause) {
      this.#tell(insert ? 'written' : 'failed', n, insert ? [cause] : cause);
    }
  }

  /** Asks in one transaction what `work` asks (requests or promises), then tells `type` with what each gave. */
  #read(n, type, work, mode = 'readonly') {
    this.#transaction(n, mode, 'relaxed', false, (entries, done) => {
      const asked = work(entries).map((each) => (each?.then ? each : ask(each)));
      Promise.all([Promise.all(asked), done]).then(
        ([results]) => this.#tell(type, n, ...results),
        (cause) => this.#tell('failed', n, cause),
      );
    });
  }

  /** Reads each record a write names (by key, or an add's by plant id) and tells them: `apply` puts what Rust makes of them, on disk when it completes. */
  #write(n, keys, byId) {
    this.#transaction(n, 'readwrite', 'strict', false, (entries, done) => {
      const write = { entries, failures: keys.map(() => undefined) };
      this.#writes.set(n, write);
      // A read that fails is the write's failure, told when the transaction ends.
      const reads = keys.map((key) => ask((byId ? entries.index('id') : entries).get(key)));
      Promise.all(reads).then((records) => {
        write.records = records;
        this.#tell('read', n, records);
      }, noop);
      const failed = (cause) => keys.map(() => cause);
      done
        .then(() => write.failures, failed)
        .then((failures) => {
          this.#writes.delete(n);
          this.#tell('written', n, failures);
        });
    });
  }

  /** Puts what Rust made of the records a write read: a record, null to delete it, undefined to leave it. */
  #apply({ entries, failures, records: read }, records) {
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

  /**
   * A new record, written and committed as it is made: `abandon` never aborts it (a page that
   * leaves keeps it). With `tag`, the page's service worker is asked to deliver it, as it commits
   * (the worker's transactions come after this one), and `synced` told once it was.
   */
  #insert(n, record, tag) {
    this.#transaction(n, 'readwrite', 'strict', true, (entries, done, tx) => {
      const request = entries.add(record);
      request.onerror = (event) => event.preventDefault();
      tx.commit?.();
      const asked = tag && this.#sync(tag);
      // Chromium aborts an add that breaks the id's index with an UnknownError: the request's own
      // error says why.
      done
        .then(noop, (c) => c)
        .then(async (cause) => {
          this.#tell('written', n, [request.error ?? cause]);
          if (!asked) return;
          await asked;
          this.#tell('synced', n);
        });
    });
  }

  /**
   * Registers `tag` with Background Sync on the page's service worker, where one is registered: a
   * promise that settles once it is, or after a second (a registration may never settle).
   */
  #sync(tag) {
    let asked;
    try {
      const registration = this.#platform.navigator?.serviceWorker?.getRegistration?.();
      asked = Promise.resolve(registration).then((it) => it?.sync?.register(tag));
    } catch {
      return Promise.resolve(); // a SecurityError: no service worker here
    }
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(resolve, 1000);
    });
    return Promise.race([asked, late])
      .then(noop, noop)
      .finally(() => clearTimeout(timer));
  }

  /** Listens to the page and the network: what each event means is Rust's. */
  #listen() {
    const { document, events } = this.#platform;
    for (const [target, types] of [
      [document, ['visibilitychange', 'freeze', 'resume']],
      [events, ['pagehide', 'pageshow', 'online', 'offline']],
    ]) {
      // Each is an EventTarget, or none: openOutbox checked what the platform gave.
      for (const type of target ? types : []) {
        target.addEventListener(type, this.#event);
        this.#listening.push([target, type]);
      }
    }
  }

  /**
   * Hears the other tabs' hints while the tab lives (its own Web Lock asked, and not given back):
   * a page in the back/forward cache that heard one would be evicted from it.
   */
  #hear(on) {
    this.#channel?.close();
    this.#channel = on ? this.#newChannel() : undefined;
    if (this.#channel) this.#channel.onmessage = this.#event;
  }

  /** A channel of the database's name, where the platform has one. */
  #newChannel() {
    const { BroadcastChannel } = this.#platform;
    if (typeof BroadcastChannel !== 'function') return undefined;
    const channel = new BroadcastChannel(this.#db.name);
    channel.unref?.(); // in Node, as the timer: it keeps no process alive on its own
    return channel;
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
