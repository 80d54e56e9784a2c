// The .wasm's URL next to the entry, and its fetch, started when this module runs. index.js imports
// it first, so the fetch starts before the glue's own code runs (its gain is in docs/performance.md).
// Bundlers turn this `new URL(…, import.meta.url)` into an asset.
export const url = new URL('./plant_store_client_bg.wasm', import.meta.url);
// A status other than 2xx rejects here, so that a failed load names it (the glue would try to
// compile a 404 page and only say it is not wasm).
const get = () =>
  fetch(url).then((r) => (r.ok ? r : Promise.reject(new Error(`${r.status} ${r.statusText}`))));
let early = get();

/** The .wasm's response: the fetch started on import, then a new one each time (after the network failed it). */
export function response() {
  const wasm = early ?? get();
  early = null;
  return wasm;
}
