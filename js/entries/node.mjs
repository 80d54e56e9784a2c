// Node (and Bun): fetch() cannot read file: URLs there, so the bytes are read from disk. A failed
// read or compile (a server bundle that did not copy the .wasm) makes every export fail with a
// `config` PlantStoreError, as in index.js.
import { readFileSync } from 'node:fs';
import { initSync } from './plant_store_client.js';
import { failLoad } from './guarded.js';

const url = new URL('./plant_store_client_bg.wasm', import.meta.url);
try {
  initSync({ module: readFileSync(url) });
} catch (cause) {
  failLoad(url, cause);
}

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError, init } from './guarded.js';
