// `PlantOutbox`, the app's outbox: each call told to Rust's `core` (src/outbox/seam.rs), each
// change told to the app, over the shell (shell.js) that does what Rust asks.
import { Shell } from './shell.js';

const OPENING = Symbol('PlantOutbox.open');
const report =
  globalThis.reportError ??
  ((error) =>
    setTimeout(() => {
      throw error;
    }));

/**
 * Opens the outbox of Rust's `core`: resolves to its PlantOutbox once it is read. `closed`, if
 * given, is called as soon as it closes on its own, even before it is read.
 */
export function start(core, closed) {
  const listeners = new Set();
  const outbox = new PlantOutbox(OPENING, core, listeners);
  /** Tells the app: an entry changed or was removed (`detail`), a record set aside (none), or the outbox closed on its own. */
  const told = (type, detail) => {
    if (type === 'closed') {
      closed?.();
      return outbox.dispatchEvent(new CustomEvent('close', { detail }));
    }
    if (detail !== undefined) outbox.dispatchEvent(new CustomEvent('change', { detail }));
    // A listener that throws is reported as an event listener's error is, and stops nothing.
    for (const { listener } of [...listeners]) {
      try {
        listener();
      } catch (error) {
        report(error);
      }
    }
  };
  return core.input('open', 0, new Shell(core, told)).then(() => outbox);
}

/** The app's outbox: each method a bound function that tells Rust's `core`. */
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
  flush = () => this.#core.input('flush').then(() => {});
  retry = (key) => this.#core.input('retry', 0, String(key));
  markCreated = (key) => this.#core.input('markCreated', 0, String(key));
  remove = (key) => this.#core.input('remove', 0, String(key));
  pause = () => void this.#core.input('pause');
  resume = () => void this.#core.input('resume');
  close = () => void this.#core.input('close');
}
