// Deno: a source-phase import yields the compiled module with no permission to read files.
// (finish-pkg.mjs keeps an import of the .wasm as written, on top of the bundle.)
import source __plantStoreWasm from './plant_store_client_bg.wasm';
import { loaded } from './api.js';

loaded(() => __plantStoreWasm, './plant_store_client_bg.wasm');

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError, init } from './api.js';
