// PlantOutbox: the outbox's JS shell. It holds what the platform gives (the store, the Web Locks,
// the channel, the timer, the listeners) and does what Rust asks, each a method below the API
// (`askLock`, `feed`, `senders`, …), telling Rust what came of it through `rules`, Rust's functions
// (src/outbox/exports.rs and page.rs). It decides nothing: when to send, what to take, what a record becomes and
// what the app sees are Rust's. The platform is `globalThis` unless the app gives another.

const OPENING = Symbol('PlantOutbox.open');
const report =
  globalThis.reportError ??
  ((error) =>
    setTimeout(() => {
      throw error;
    }));

/** Opens the outbox for Rust's `rules` over `opening`, the promise of its store (store.js): reads what it holds, listens. */
export let open;

export class PlantOutbox extends EventTarget {
  #rules;
  #platform;
  #store;
  #listeners = new Set();
  #listening = [];
  #channel;
  #lock;
  #alive;
  #timer;
  #calls = new AbortController();
  /** Writes and senders under way: the store closes after the last, once the outbox is closed. */
  #busy = 0;
  #closed = false;

  static {
    open = async (rules, platform, opening) => {
      const opened = await opening.catch((cause) => {
        throw rules.opening(cause);
      });
      const outbox = new PlantOutbox(OPENING, rules, platform, opened);
      rules.opened(outbox);
      await outbox.#reload().catch((error) => {
        outbox.close();
        throw error;
      });
      outbox.#listen();
      rules.ask(platform.document?.visibilityState);
      return outbox;
    };
  }

  constructor(opening, rules, platform, store) {
    if (opening !== OPENING)
      throw new TypeError('PlantOutbox: use `await PlantOutbox.open(options)`');
    super();
    [this.#rules, this.#platform, this.#store] = [rules, platform, store];
    store.closed = (event) => rules.lost(event);
  }

  /** Validates `plant`, then resolves to its entry once it is durably stored. */
  async add(plant) {
    return this.write(this.#rules.add(plant));
  }

  /** The entries this tab holds, in the order they were added: the same array until one changes. */
  entries = () => this.#rules.entries();

  /** Calls `listener` after each change; returns what stops it (React's `useSyncExternalStore`). */
  subscribe = (listener) => {
    const subscription = { listener };
    this.#listeners.add(subscription);
    return () => this.#listeners.delete(subscription);
  };

  /** The entry of `key` as the store holds it now. */
  async get(key) {
    return this.#rules.view(await this.record(String(key)));
  }

  /** The record the store holds under `key`. */
  async record(key) {
    this.#rules.usable('get');
    return this.#store.get(key).catch((cause) => {
      throw this.#rules.failed('read its store', cause);
    });
  }

  unreadable() {
    return this.#rules.unreadable();
  }

  flush() {
    return new Promise((resolve) => this.#rules.flush(resolve));
  }

  async retry(key) {
    return this.write(this.#rules.retry(String(key)));
  }

  async markCreated(key) {
    return this.write(this.#rules.markCreated(String(key)));
  }

  async remove(key) {
    return this.write(this.#rules.remove(String(key)));
  }

  pause() {
    this.#rules.paused(true);
  }

  resume() {
    this.#rules.paused(false);
  }

  close() {
    this.#rules.close();
  }

  // What Rust asks.

  /** Requests the Web Lock `name` (Rust is told `lock(true)` once it is held, `lock(false, cause)` if the request fails). */
  askLock(name) {
    this.#lock = lock(
      this.#platform.navigator.locks,
      name,
      () => this.#rules.lock(true),
      (cause) => this.#rules.lock(false, cause),
    );
  }

  /** Gives the lock back now, or drops the request for it. */
  release() {
    this.#lock?.();
    this.#lock = undefined;
  }

  /** Holds the lock `name` while this tab lives (its own: the other tabs see it alive), letting go of the one before. */
  live(name) {
    this.#alive?.();
    this.#alive =
      name &&
      lock(
        this.#platform.navigator.locks,
        name,
        () => {},
        () => {},
      );
  }

  /** Posts `hint` to the other tabs. */
  post(hint) {
    this.#channel?.postMessage(hint);
  }

  /** Reads the keys due by `until` for round number `round`, and the locks held when `locked`. */
  feed(round, until, locked) {
    const held = locked ? this.#platform.navigator.locks.query() : undefined;
    Promise.all([this.#store.due(until), held]).then(
      ([keys, locks]) => this.#rules.fed(round, keys, locks?.held.map((lock) => lock.name) ?? []),
      () => this.#rules.fed(round, [], []),
    );
  }

  /** Starts `count` senders of round number `round`: each writes the answer of its last send with the take Rust gives next, then awaits the send Rust starts. */
  senders(round, count) {
    for (let i = 0; i < count; i++) this.#sender(round);
  }

  async #sender(round) {
    this.#busy++;
    for (let answer; ; ) {
      const change = this.#rules.next(round, answer);
      if (change === undefined) break;
      answer = await this.write(change).catch(() => undefined);
    }
    this.#idle();
  }

  /** The signal of the round's calls; `abort()` aborts them. */
  signal() {
    return this.#calls.signal;
  }

  abort() {
    this.#calls.abort();
    this.#calls = new AbortController();
  }

  /** The page froze: the store ends its transactions and begins none. */
  suspend() {
    this.#store.suspend();
  }

  /** The page is back: the store is read again, then Rust asks for a round. */
  back() {
    this.#reload().then(
      () => this.#rules.ask(this.#platform.document?.visibilityState),
      () => {},
    );
  }

  /** Reads the store again (on open, and when the page is back): the answers it could not write first. */
  async #reload() {
    this.#store.resume();
    await this.write(this.#rules.left()).catch(() => {});
    const records = await this.#store.load(this.#rules.shown).catch((cause) => {
      throw this.#rules.failed('read its store', cause);
    });
    for (const key of this.#rules.loaded(records)) this.reread(key);
  }

  /** Reads the record of `key` again (another tab changed it). */
  reread(key) {
    this.#store.get(key).then(
      (record) => this.#rules.read(key, record),
      () => {},
    );
  }

  /** Removes the created entries whose retention is over at `now`, then tells Rust when the next one is. */
  async purge(now) {
    const keys = await this.#store.expired(now).catch(() => []);
    await this.write(this.#rules.expire(keys)).catch(() => {});
    this.#rules.purged(await this.#store.next(now).catch(() => undefined));
  }

  arm(ms) {
    this.disarm();
    this.#timer = setTimeout(() => this.#rules.timer(), ms);
  }

  disarm() {
    clearTimeout(this.#timer);
  }

  /** An entry changed, or was removed (`detail`), or a record was set aside (none). */
  changed(detail) {
    if (detail !== undefined) this.dispatchEvent(new CustomEvent('change', { detail }));
    // A listener that throws is reported as an event listener's error is, and stops nothing.
    for (const { listener } of [...this.#listeners]) {
      try {
        listener();
      } catch (error) {
        report(error);
      }
    }
  }

  /** The outbox closes: its listeners and channel let go, its store closed after the last write; `why` when it closed on its own. */
  closed(why) {
    this.#closed = true;
    this.live(undefined);
    this.disarm();
    for (const [target, type] of this.#listening) target.removeEventListener(type, this.#event);
    this.#channel?.close();
    this.#channel = undefined;
    if (why !== undefined || this.#busy === 0) this.#store.close();
    if (why !== undefined) this.dispatchEvent(new CustomEvent('close', { detail: why }));
  }

  /** Listens to what Rust names: the document's and the window's events, and the channel (when the store is shared). */
  #listen() {
    const { document } = this.#platform;
    for (const [target, types] of [
      [document, this.#rules.documentEvents],
      [this.#platform, this.#rules.windowEvents],
    ]) {
      if (typeof target?.addEventListener !== 'function') continue;
      for (const type of types) {
        target.addEventListener(type, this.#event);
        this.#listening.push([target, type]);
      }
    }
    const { BroadcastChannel } = this.#platform;
    if (this.#rules.channel && typeof BroadcastChannel === 'function') {
      this.#channel = new BroadcastChannel(this.#rules.channel);
      this.#channel.onmessage = this.#event;
    }
  }

  #event = (event) => this.#rules.event(event, this.#platform.document?.visibilityState);

  /** Writes Rust's `change`: each record read and rewritten by Rust's `apply`, in one transaction; what Rust makes of it. */
  async write(change) {
    if (change === undefined) return;
    const { targets, byId, strict } = change;
    this.#busy++;
    const apply = (i, record) => this.#rules.apply(change, i, record);
    const failures = await this.#store
      .change(targets, byId, apply, strict)
      .catch((failure) => targets.map(() => failure));
    this.#idle();
    return this.#rules.written(change, failures);
  }

  #idle() {
    this.#busy--;
    if (this.#closed && this.#busy === 0) this.#store.close();
  }
}

/**
 * Requests the Web Lock `name` of `locks` (a LockManager): `granted()` once it is held,
 * `failed(cause)` if the request fails. Gives the function that lets it go, or drops the request.
 */
function lock(locks, name, granted, failed) {
  const asked = new AbortController();
  let release;
  const held = () =>
    new Promise((resolve) => {
      release = resolve;
      if (asked.signal.aborted) resolve();
      else granted();
    });
  locks.request(name, { signal: asked.signal }, held).catch((cause) => {
    if (!asked.signal.aborted) failed(cause);
  });
  return () => {
    asked.abort();
    release?.();
  };
}
