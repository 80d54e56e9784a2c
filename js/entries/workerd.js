// workerd (Cloudflare Workers): no wasm compilation from bytes at run time; the bundler or the
// config hands over the .wasm as a WebAssembly.Module. (finish-pkg.mjs keeps an import of the .wasm
// as written, on top of the bundle.)
import __plantStoreWasm from './plant_store_client_bg.wasm';
import { loaded } from './api.js';

loaded(__plantStoreWasm);

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError, init } from './api.js';
