// Vercel's edge runtime (Next.js edge route handlers and middleware, Vercel Edge Functions): as in
// workerd, no wasm compilation from bytes at run time, and a fetched .wasm is not found there; their
// bundlers hand over `.wasm?module` as a WebAssembly.Module. (finish-pkg.mjs keeps an import of the
// .wasm as written, on top of the bundle.)
import __plantStoreWasm from './plant_store_client_bg.wasm?module';
import { loaded } from './api.js';

// Next.js runs an edge route in a sandbox realm and hands over a module compiled outside it, which
// the glue's `instanceof WebAssembly.Module` does not recognise (it would then try to compile the
// module as bytes). WebAssembly checks the module's internal slot, not its prototype.
if (!(__plantStoreWasm instanceof WebAssembly.Module))
  Object.setPrototypeOf(__plantStoreWasm, WebAssembly.Module.prototype);
loaded(__plantStoreWasm);

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError, init } from './api.js';
