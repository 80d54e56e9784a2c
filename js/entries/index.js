// Browsers and bundlers: the .wasm is an asset found through import.meta.url (wasm-url.js, imported
// first), instantiated with top-level await before the API is usable.
import { response } from './wasm-url.js';
import load from './plant_store_client.js';

await load({ module_or_path: response });

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError } from './plant_store_client.js';

/** The wasm module is already loaded on import; this resolves at once (kept for portable code). */
export async function init(source) {}
