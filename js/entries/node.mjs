// Node, Deno and Bun: the .wasm is inside this module (wasm.js), compiled and instantiated on import
// (a server's start, where no page waits); no file to read, so no permission to ask (Deno) and
// nothing for a server bundle to copy.
import { wasmBytes } from './wasm.js';
import { loaded } from './api.js';

loaded(wasmBytes());

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError, init } from './api.js';
