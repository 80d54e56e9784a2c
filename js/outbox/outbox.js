// PlantOutbox: the outbox's operations, what a tab holds of the store (a snapshot, never written
// back), and when a round sends. Each change is a step of Rust's table that store.js writes; Rust
// also validates a plant, makes its record and sends it (`rules`, src/outbox/shell.rs). This file
// decides only when: on open, `add`, `retry`, `resume`, `flush()`, the network or the page coming
// back, another tab letting go, and a timer for the next entry due or created entry expiring.
import { PlantStoreError } from '../error.js';
import { failed, said, text } from './store.js';
import { senders } from './tabs.js';

/** An entry's view from Rust's JSON: a BigInt id (the view's only `id`, its plant's) comes as a string (JSON has no BigInt). */
const view = (json) =>
  JSON.parse(json, (name, value) =>
    name === 'id' && typeof value === 'string' ? BigInt(value) : value,
  );
/** The least wait for an entry already due: one a round left, or that the tab that added it is taking. */
const AGAIN_MS = 1_000;
const OPENING = Symbol('PlantOutbox.open');
const warn = (what, cause) => console.warn(`plant-store-client/outbox: ${what} (${said(cause)})`);
const report =
  globalThis.reportError ??
  ((error) =>
    setTimeout(() => {
      throw error;
    }));

/** Opens the outbox over the promise of its store (store.js) and its tabs (tabs.js); Rust composes them. */
export let open;
/** The Rust API's: stores a new entry's record (resolving to the record stored); the records held; a record by key. */
export let insert, held, stored;

export class PlantOutbox extends EventTarget {
  #rules;
  #store;
  #tabs;
  #concurrency;
  /** What this tab holds of the store: key → { record, entry, due }; and the records set aside. */
  #entries = new Map();
  #aside = new Map();
  /** `entries()`: the same array until something changes. */
  #list = null;
  #listeners = new Set();
  #closed = false;
  #paused = false;
  /** Frozen or left (the back/forward cache): nothing is sent or written until the page is back. */
  #suspended = false;
  /** Raised when the tab lets go: a round begun before takes nothing more. */
  #epoch = 0;
  /** The round under way (`senders`, tabs.js): `feed()` reads into it what is due, `abort` ends its calls. */
  #running = null;
  /** The round asked for and not begun (its `force` and `done`), and the last one begun. */
  #queued = null;
  #last = Promise.resolve();
  #timer;
  /** When the next created entry expires. */
  #expiry;

  constructor(opening, store, tabs, concurrency, rules) {
    if (opening !== OPENING)
      throw new TypeError('PlantOutbox: use `await PlantOutbox.open(options)`');
    super();
    [this.#store, this.#tabs, this.#concurrency, this.#rules] = [store, tabs, concurrency, rules];
    store.closed = (why) => this.#close(why);
    tabs.listen({
      heard: (keys) => {
        for (const key of keys) this.#reread(key);
      },
      released: () => this.#kick(),
      leave: (suspend) => this.#leave(suspend),
      back: () => this.#back(),
      online: () => this.#kick(true),
    });
  }

  static {
    open = async (opening, tabs, concurrency, rules) => {
      const store = await opening.catch((error) => {
        tabs.close();
        throw error;
      });
      const outbox = new PlantOutbox(OPENING, store, tabs, concurrency, rules);
      await outbox.#load().catch((cause) => {
        outbox.close();
        throw failed('read its store', cause);
      });
      outbox.#kick();
      return outbox;
    };
    insert = (outbox, record) => outbox.#insert(record).then((step) => step[1]);
    held = (outbox) => [...outbox.#entries.values()].map((entry) => entry.record);
    stored = (outbox, key) =>
      outbox.#store.get(key).then(text, (cause) => {
        throw failed('read its store', cause);
      });
  }

  /** Validates `plant`, then resolves to its entry once it is durably stored. */
  async add(plant) {
    const step = await this.#insert(this.#rules.add(plant));
    return this.#entries.get(JSON.parse(step[1]).key).entry;
  }

  /** The entries this tab holds, in the order they were added: the same array until one changes. */
  entries = () =>
    (this.#list ??= Object.freeze(
      [...this.#entries.values()]
        .map(({ entry }) => entry)
        .sort((a, b) => a.addedAt - b.addedAt || (a.key < b.key ? -1 : 1)),
    ));

  /** Calls `listener` after each change; returns what stops it (React's `useSyncExternalStore`). */
  subscribe = (listener) => {
    const subscription = { listener };
    this.#listeners.add(subscription);
    return () => this.#listeners.delete(subscription);
  };

  unreadable() {
    return [...this.#aside.values()];
  }

  /** The entry of `key` as the store holds it now. */
  async get(key) {
    this.#usable('get');
    const record = await stored(this, String(key));
    const [kind, , entry] = record === undefined ? [] : this.#rules.apply(record, 'check', '');
    return kind === 'keep' ? view(entry) : undefined;
  }

  flush() {
    return this.#closed || this.#paused ? Promise.resolve() : this.#kick(true);
  }

  async retry(key) {
    await this.#act('retry', key);
    this.#kick();
  }

  markCreated(key) {
    return this.#act('resolve', key, 'markCreated');
  }
  remove(key) {
    return this.#act('remove', key);
  }
  pause() {
    [this.#paused, this.#epoch] = [true, this.#epoch + 1];
  }
  resume() {
    this.#paused = false;
    this.#kick();
  }
  close() {
    this.#close();
  }

  #usable(operation) {
    if (this.#closed)
      throw new PlantStoreError('config', `outbox.${operation}: the outbox is closed`);
  }

  async #insert(record) {
    this.#usable('add');
    const step = await this.#store.insert(record).catch((cause) => {
      throw failed('store the entry', cause);
    });
    if (step[0] === 'refused') throw new PlantStoreError('config', step[1]);
    // The entry stored: this one, or the one of the plant's id that the store held.
    this.#took(JSON.parse(step[1]).key, step);
    this.#kick();
    return step;
  }

  async #act(event, key, operation = event) {
    this.#usable(operation);
    const [{ step, error }] = await this.#changes([[String(key), event, '']]).catch((error) => [
      { error },
    ]);
    if (error) throw failed(operation, error);
    if (step[0] === 'refused')
      throw new PlantStoreError('config', `outbox.${operation}: not now, ${step[1]}`);
  }

  /** Changes of records (`[key, event, detail]` each) made by the store, then taken here and told to the other tabs. */
  async #changes(changes) {
    const done = await this.#store.changes(changes);
    done.forEach(({ step }, i) => {
      if (step) this.#took(changes[i][0], step);
    });
    return done;
  }

  #took(key, step) {
    if (step[0] === 'refused') return;
    this.#take(key, step);
    if (step[0] !== 'keep') this.#tabs.told([key]);
  }

  /** Takes what the store holds of `key`: a step a change made, or a record read (`raw`). */
  #take(key, [kind, record, entry, due], raw) {
    const held = this.#entries.get(key);
    if (kind === 'put' || kind === 'keep') {
      if (held?.record === record) return;
      this.#entries.set(key, { record, entry: view(entry), due });
      return this.#changed(key, record, this.#entries.get(key).entry);
    }
    const wasAside = this.#aside.delete(key);
    if (kind === 'aside') this.#aside.set(key, { key, reason: record, record: raw });
    if (held && this.#entries.delete(key)) this.#changed(key, undefined, { key, removed: true });
    else if (kind === 'aside' || wasAside) this.#changed(key);
  }

  #changed(key, record, detail) {
    this.#list = null;
    if (detail) {
      this.#rules.changed?.(key, record);
      this.dispatchEvent(new CustomEvent('change', { detail }));
    }
    // A listener that throws is reported as an event listener's error is, and stops nothing.
    for (const { listener } of [...this.#listeners])
      try {
        listener();
      } catch (error) {
        report(error);
      }
  }

  /** A record read from the store (`raw`; undefined once gone), unless older than the entry held: a read that came in late. */
  #read(key, raw) {
    const step = raw === undefined ? ['delete'] : this.#rules.apply(text(raw), 'check', '');
    if (step[0] === 'keep' && JSON.parse(step[2]).revision < this.#entries.get(key)?.entry.revision)
      return;
    this.#take(key, step, raw);
  }

  /** Another tab changed `key`: the store is read again. */
  async #reread(key) {
    const raw = await this.#store.get(key).catch(() => null);
    if (raw !== null && !this.#closed) this.#read(key, raw);
    this.#schedule();
  }

  /** Reads what the store holds: on open, and when the page comes back. */
  async #load() {
    const gone = new Set(this.#entries.keys());
    for (const raw of await this.#store.load()) {
      gone.delete(raw?.key);
      this.#read(raw?.key, raw);
    }
    for (const key of gone) this.#read(key, undefined);
  }

  /** Asks for a round (`force`: every entry that waits, but on the server); resolves when it has run. */
  #kick(force = false) {
    this.#running?.feed();
    if (this.#queued) {
      this.#queued.force ||= force;
      return this.#queued.done;
    }
    const next = { force };
    this.#queued = next;
    next.done = this.#last.then(() => {
      this.#queued = null;
      return this.#round(next.force);
    });
    this.#last = next.done.catch(() => {});
    return next.done;
  }

  #sends() {
    return (
      !this.#closed && !this.#paused && !this.#suspended && globalThis.navigator?.onLine !== false
    );
  }

  /** A round: holding the lock, what Rust says to take is sent, `concurrency` at once; then the retention. */
  async #round(force) {
    const epoch = this.#epoch;
    const going = () => epoch === this.#epoch && this.#sends();
    if (going()) {
      await this.#tabs.withLock(async (locked) => {
        if (!going()) return;
        const take = [locked && 'lock', force && 'force'].filter(Boolean).join(' ');
        const abort = new AbortController();
        this.#running = senders({
          take,
          going,
          signal: abort.signal,
          concurrency: this.#concurrency,
          warn: (...why) => this.#suspended || warn(...why),
          due: (take) => this.#store.due(take),
          changes: (list) => this.#changes(list),
          send: (record, signal) => this.#rules.send(record, signal),
          unrecorded: (key, cause) => this.#unrecorded(key, cause),
        });
        this.#running.abort = abort;
        await this.#running.done;
        if (going()) await this.#purge();
      });
    }
    this.#schedule();
  }

  /** The store could not record the answer to `key`: it stays sending, and the next round sends it again, with its key. */
  #unrecorded(key, cause) {
    if (this.#closed || this.#suspended) return; // a page that froze or left writes nothing, by design (nor warns: #round)
    warn(
      `its store could not record the answer to entry ${key}: it stays sending, and is sent again with the same Idempotency-Key`,
      cause,
    );
    setTimeout(() => this.#kick(), AGAIN_MS);
  }

  async #purge() {
    // A purge that failed keeps the expiry known before: its timer runs the purge again.
    const { removed, next } = await this.#store
      .purge()
      .catch(() => ({ removed: [], next: this.#expiry }));
    for (const key of removed) this.#read(key, undefined);
    if (removed.length) this.#tabs.told(removed);
    this.#expiry = next;
  }

  /** Arms the timer of the next round: the earliest entry due, or created entry expiring. */
  #schedule() {
    clearTimeout(this.#timer);
    let at = this.#expiry ?? Infinity;
    for (const { due } of this.#entries.values()) if (due < at) at = due;
    if (!this.#sends() || at === Infinity) return;
    const wait = at - Date.now();
    this.#timer = setTimeout(
      () => this.#kick(),
      wait <= 0 ? AGAIN_MS : Math.min(wait, 2 ** 31 - 1),
    );
  }

  /** The page hides (`suspend` false), or freezes or leaves: the round stops and the lock is given back now. */
  #leave(suspend) {
    this.#epoch++;
    this.#running?.abort.abort('the page let go of the outbox');
    this.#tabs.letGo();
    // Hidden, it sends on once a visible tab had the time to take over (tabs.js tells it: `released`).
    if (!suspend) return;
    this.#suspended = true;
    clearTimeout(this.#timer);
    this.#store.leave();
  }

  #back() {
    if (!this.#suspended || this.#closed) return;
    this.#suspended = false;
    this.#store.back();
    this.#load().then(
      () => this.#kick(),
      () => {},
    );
  }

  /** Closes the outbox: on `close()`, or on its own (`why`), when its database closes under it. */
  #close(why) {
    if (this.#closed) return;
    [this.#closed, this.#epoch] = [true, this.#epoch + 1];
    this.#running?.abort.abort('the outbox was closed');
    this.#tabs.letGo();
    this.#tabs.close();
    clearTimeout(this.#timer);
    // The round records the answers that came just before (but a database closing under it cannot wait).
    if (!why) return void this.#last.then(() => this.#store.close());
    this.#store.close();
    this.#rules.closed?.(why);
    this.dispatchEvent(new CustomEvent('close', { detail: why }));
  }
}
