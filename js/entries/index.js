// Browsers and bundlers: the .wasm is inside this module (wasm.js), compiled in the background on
// import, off the main thread, where compiling it synchronously would hold a page's main thread for
// several milliseconds in Firefox (bench/run prints it per engine). Every export works at once: one
// used before the compile is done compiles the module then (api.js).
import { wasmBytes } from './wasm.js';
import { compiling, framesOnFailure } from './api.js';

compiling(wasmBytes());
framesOnFailure();

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError, init } from './api.js';
