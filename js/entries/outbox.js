// The outbox of `plant-store-client/outbox`: the crate's PlantOutbox (js/outbox/outbox.js, which
// the glue re-exports), with `open`, which waits for the .wasm; and MemoryStore.
// scripts/finish-pkg.mjs adds this module's exports to each entry of the outbox's build, which
// exports the whole API, so that a page that uses the outbox loads one .wasm.
import { openOutbox, PlantOutbox } from './plant_store_client.js';
import { fromCall, init } from './api.js';

/**
 * Opens the outbox once the .wasm is loaded; rejects with a `config` PlantStoreError whose stack
 * has the line that called `open`, as createPlant's (fromCall).
 */
PlantOutbox.open = function open(options) {
  const opened = fromCall(
    open,
    init().then(() => openOutbox(options)),
  );
  return opened; // not a tail call: fromCall needs this frame (JavaScriptCore drops it from one)
};

/**
 * Records in memory, by key: an outbox store (`options.store`) for tests and one process. JS, as
 * the store interface is: in Rust it would carry a map and five exports into the .wasm for test
 * support.
 */
export class MemoryStore {
  #records = new Map();
  async getAll() {
    return [...this.#records.values()];
  }
  async get(key) {
    return this.#records.get(key);
  }
  async put(record) {
    this.#records.set(record.key, structuredClone(record));
  }
  async delete(key) {
    this.#records.delete(key);
  }
}

export { PlantOutbox };
