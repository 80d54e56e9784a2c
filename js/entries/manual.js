// No side effect: `init(source)` loads the wasm, once, through the glue's own loader, which takes
// every kind of source: the .wasm's URL (default: next to this file), a Response, its bytes or a
// WebAssembly.Module. Until then the exports say to await it (api.js). For service workers, and
// for pages that load the .wasm from a URL of their own.
import load from './plant_store_client.js';
import { framesOnFailure, manual } from './api.js';

manual((source) =>
  load({ module_or_path: source ?? new URL('./plant_store_client_bg.wasm', import.meta.url) }),
);
framesOnFailure();

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError, init } from './api.js';
