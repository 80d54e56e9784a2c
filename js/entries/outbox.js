// PlantOutbox, the outbox of `plant-store-client/outbox`: an EventTarget (which wasm-bindgen cannot
// write) over the crate's OutboxCore (src/js/outbox.rs), each change of an entry a `change` event
// and the outbox closing on its own a `close` event; and MemoryStore. scripts/finish-pkg.mjs adds
// this module's exports to each entry of the outbox's build, which exports the whole API, so that a
// page that uses the outbox loads one .wasm.
import { openOutbox } from './plant_store_client.js';
import { init } from './api.js';

/**
 * Records in memory, by key: an outbox store (`options.store`) for tests and one process. JS, as
 * the store interface is: in Rust it would carry a map and five exports into the .wasm for test
 * support.
 */
export class MemoryStore {
  #records = new Map();
  async getAll() { return [...this.#records.values()]; }
  async put(record) { this.#records.set(record.key, record); }
  async delete(key) { this.#records.delete(key); }
}

const opening = Symbol('PlantOutbox.open');

export class PlantOutbox extends EventTarget {
  #core;

  constructor(token) {
    if (token !== opening) throw new TypeError('PlantOutbox: use `await PlantOutbox.open(options)`');
    super();
  }

  /** Opens the outbox once the .wasm is loaded; rejects with a `config` PlantStoreError. */
  static async open(options) {
    await init();
    const outbox = new PlantOutbox(opening);
    const changed = (type, detail) => outbox.dispatchEvent(new CustomEvent(type, { detail }));
    outbox.#core = await openOutbox(options, changed);
    return outbox;
  }

  add(plant) { return this.#core.add(plant); }
  entries() { return this.#core.entries(); }
  unreadable() { return this.#core.unreadable(); }
  flush() { return this.#core.flush(); }
  retry(key) { return this.#core.retry(key); }
  markCreated(key) { return this.#core.markCreated(key); }
  remove(key) { return this.#core.remove(key); }
  pause() { this.#core.pause(); }
  resume() { this.#core.resume(); }
  close() { this.#core.close(); }
}
