// The API of every entry that loads the wasm module when imported. Where that load can fail
// (index.js, node.mjs), the import still succeeds and every export fails with one `config`
// PlantStoreError that names the URL tried and the fix: a rejected import would be an unhandled
// rejection that no try/catch around a static import can turn into a PlantStoreError.
import {
  createPlant as create, validateNewPlant as validate, PlantStoreClient as Client, PlantStoreError,
} from './plant_store_client.js';

// Live bindings: failLoad() replaces them before the importing entry finishes evaluating, so no
// importer ever sees the ones that need the module.
export let createPlant = create, validateNewPlant = validate, PlantStoreClient = Client;
export { PlantStoreError };

/** The wasm module is already loaded on import; this resolves at once (kept for portable code). */
export let init = async (source) => {};

/**
 * After a failed load from `url`: createPlant and init reject, validateNewPlant and new
 * PlantStoreClient throw, each time a fresh `config` PlantStoreError whose `cause` is the failure.
 */
export function failLoad(url, cause) {
  init = createPlant = async () => fail();
  validateNewPlant = PlantStoreClient = fail;
  // A function, not an arrow: `new PlantStoreClient()` must run it to throw the error.
  function fail() {
    throw new PlantStoreError('config', `plant-store-client could not load its wasm module from ${url} (${cause}). ` +
      'Serve plant_store_client_bg.wasm there (copy it next to your bundle if your bundler did not emit it; ' +
      "a Content-Security-Policy must allow 'wasm-unsafe-eval'), " +
      "or import from 'plant-store-client/manual' and await init(url) with the URL where you serve it", { cause });
  }
}
