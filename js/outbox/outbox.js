// `PlantOutbox`, the app's outbox: each call told to Rust's `core` (src/outbox/seam.rs), each
// change told to the app, over the shell (shell.js) that does what Rust asks.
import { Shell } from './shell.js';
import { fromCall, fromCaller, PlantStoreError } from '../entries/api.js';

const OPENING = Symbol('PlantOutbox.open');
const config = (message) => new PlantStoreError('config', message);
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
  #call;

  constructor(opening, core, listeners) {
    if (opening !== OPENING)
      throw fromCaller(
        PlantOutbox,
        config('new PlantOutbox(): use `await PlantOutbox.open(options)`'),
      );
    super();
    [this.#core, this.#listeners] = [core, listeners];
    // Its error has the frame of the line that awaited the call, as createPlant's.
    this.#call = (type, key) => fromCall(core.input(type, 0, key));
  }

  add = (plant) => this.#call('add', plant);
  entries = () => this.#core.entries();
  subscribe = (listener) => {
    if (typeof listener !== 'function')
      throw fromCaller(
        this.subscribe,
        config('outbox.subscribe(listener): listener must be a function'),
      );
    const subscription = { listener };
    this.#listeners.add(subscription);
    return () => this.#listeners.delete(subscription);
  };
  get = (key) => this.#call('get', String(key));
  unreadable = () => this.#core.unreadable();
  flush = () => this.#call('flush').then(() => {});
  retry = (key) => this.#call('retry', String(key));
  markCreated = (key) => this.#call('markCreated', String(key));
  remove = (key) => this.#call('remove', String(key));
  pause = () => void this.#core.input('pause');
  resume = () => void this.#core.input('resume');
  close = () => void this.#core.input('close');
}
