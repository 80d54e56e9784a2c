// The outbox of `plant-store-client/outbox`: `PlantOutbox` (js/outbox/outbox.js, over its shell)
// with `open`, which checks the options in Rust (`openOutbox`) once the .wasm is loaded.
// scripts/finish-pkg.mjs adds this module's exports to each entry of the outbox's build, which
// exports the whole API, so that a page that uses the outbox loads one .wasm.
import { openOutbox } from './plant_store_client.js';
import { fromCall, init } from './api.js';
import { PlantOutbox, start } from '../outbox/outbox.js';

/**
 * Opens the outbox once the .wasm is loaded; rejects with a `config` PlantStoreError whose stack
 * has the line that awaited `open`, as createPlant's (fromCall).
 */
PlantOutbox.open = (options) => fromCall(init().then(() => start(openOutbox(options, false))));

export { PlantOutbox };
