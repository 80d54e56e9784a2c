// Deno: a source-phase import yields the compiled module with no permission to read files.
// (finish-pkg.mjs keeps an import of the .wasm as written, on top of the bundle.)
import source __plantStoreWasm from './plant_store_client_bg.wasm';
import { initSync } from './plant_store_client.js';

initSync({ module: __plantStoreWasm });

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError, init } from './guarded.js';
