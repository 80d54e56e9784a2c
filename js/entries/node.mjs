// Node (and Bun): fetch() cannot read file: URLs there, so the bytes are read from disk and the
// module instantiated on import. A failed read or compile (a server bundle that did not copy the
// .wasm) makes every export fail with a `config` PlantStoreError, as in index.js.
import { readFileSync } from 'node:fs';
import { loaded } from './api.js';

const url = new URL('./plant_store_client_bg.wasm', import.meta.url);
loaded(() => readFileSync(url), url);

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError, init } from './api.js';
