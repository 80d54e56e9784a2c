// The outbox of `plant-store-client/outbox`: the crate's PlantOutbox (js/outbox/outbox.js, which
// the glue re-exports), with `open`, which waits for the .wasm. scripts/finish-pkg.mjs adds this
// module's exports to each entry of the outbox's build, which exports the whole API, so that a
// page that uses the outbox loads one .wasm.
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

export { PlantOutbox };
