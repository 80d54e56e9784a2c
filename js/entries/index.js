// Browsers and bundlers: the .wasm is an asset found through import.meta.url (wasm-url.js, imported
// first), compiled while it streams in, and instantiated with top-level await before the API is
// usable. A failed load (404, not wasm, a CSP without 'wasm-unsafe-eval') does not reject the
// import: every export fails with a `config` PlantStoreError instead (guarded.js).
//
// Compiled here and handed to the glue's initSync rather than through the glue's default loader,
// which carries every kind of source and its warnings (its price is in docs/performance.md).
import { url, response } from './wasm-url.js';
import { initSync } from './plant_store_client.js';
import { failLoad } from './guarded.js';

/** Compiles the .wasm as it arrives; from its bytes when the server does not label it application/wasm. */
const compile = (wasm) => WebAssembly.compileStreaming(wasm).catch(async (error) => {
  if (/^application\/wasm\b/.test(wasm.headers.get('content-type'))) throw error;
  return WebAssembly.compile(await wasm.arrayBuffer());
});

await response.then(compile).then((module) => initSync({ module })).catch((cause) => failLoad(url, cause));

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError, init } from './guarded.js';
