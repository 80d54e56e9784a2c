// Browsers and bundlers: the .wasm is an asset found through import.meta.url (wasm-url.js, imported
// first), instantiated with top-level await before the API is usable. A failed load (404, not wasm,
// a CSP without 'wasm-unsafe-eval') does not reject the import: every export fails with a `config`
// PlantStoreError instead (guarded.js).
import { url, response } from './wasm-url.js';
import load from './plant_store_client.js';
import { failLoad } from './guarded.js';

await load({ module_or_path: response }).catch((cause) => failLoad(url, cause));

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError, init } from './guarded.js';
