// Node (and Bun): fetch() cannot read file: URLs there, so the bytes are read from disk.
import { readFileSync } from 'node:fs';
import { initSync } from './plant_store_client.js';

initSync({ module: readFileSync(new URL('./plant_store_client_bg.wasm', import.meta.url)) });

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError } from './plant_store_client.js';

/** The wasm module is already loaded on import; this resolves at once (kept for portable code). */
export async function init(source) {}
