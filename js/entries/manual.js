// No top-level await and no side effect: `init()` loads the wasm, once (the glue shares a
// concurrent load). Until then every export fails with a `config` PlantStoreError that says so, not
// with the glue's TypeError. For service workers and build targets without top-level await.
import load, {
  createPlant as create, validateNewPlant as validate, PlantStoreClient as Client, PlantStoreError,
} from './plant_store_client.js';

export { PlantStoreError };
let loaded = false;
const notLoaded = () => new PlantStoreError('config', 'the wasm module is not loaded yet: with plant-store-client/manual, await init() first');

/**
 * Loads and instantiates the wasm module once. `source` is the .wasm's URL (default: next to this
 * file), a Response, its bytes, or a compiled WebAssembly.Module. Safe to call twice or concurrently.
 * A failed load rejects with a `config` PlantStoreError that names the URL tried.
 */
export async function init(source) {
  source ??= new URL('./plant_store_client_bg.wasm', import.meta.url);
  try {
    await load({ module_or_path: source });
  } catch (cause) {
    const url = typeof source == 'string' ? source : source.href ?? source.url ?? 'the source given to init()';
    throw new PlantStoreError('config', `init() could not load the wasm module from ${url}: ${cause}. ` +
      'Pass init() the URL where plant_store_client_bg.wasm is served, its bytes or a WebAssembly.Module', { cause });
  }
  loaded = true;
}
export function createPlant(plant, options) {
  return loaded ? create(plant, options) : Promise.reject(notLoaded());
}
export function validateNewPlant(plant) {
  if (!loaded) throw notLoaded();
  return validate(plant);
}
export class PlantStoreClient extends Client {
  constructor(options) {
    if (!loaded) throw notLoaded();
    super(options);
  }
}
