// The API of every entry, over the glue, and the state of the .wasm's load. Each entry starts the
// load its runtime's way: loaded() at once, loading() in the background, or manual() for init().
// - createPlant, and a client's createPlant, wait for a load under way.
// - validateNewPlant and new PlantStoreClient answer at once: before the load is done, the first
//   throws a `config` PlantStoreError that says to `await init()`, and a client's options are
//   checked when the load is done (its first call rejects if one is wrong).
// - After a failed load on import, every export fails with one `config` PlantStoreError naming the
//   URL tried and the fix: a rejected import is an unhandled rejection no try/catch can turn into
//   a PlantStoreError.
import {
  initSync, createPlant as create, validateNewPlant as validate, PlantStoreClient as Client, PlantStoreError,
} from './plant_store_client.js';

export { PlantStoreError };

let ready = false;
let pending = null;
let failure = null;
/** How init() loads the module (manual.js); the other entries load it themselves. */
let load = null;

const notReady = () => new PlantStoreError('config',
  'the wasm module is not loaded yet: await init() first (plant-store-client/manual loads it only then)');

/** The error of a load from `url` that failed with `cause`. */
function failed(url, cause) {
  return new PlantStoreError('config', `plant-store-client could not load its wasm module from ${url} (${cause}). ` +
    'Serve plant_store_client_bg.wasm there (copy it next to your bundle if your bundler did not emit it; ' +
    "a Content-Security-Policy must allow 'wasm-unsafe-eval'), " +
    "or import from 'plant-store-client/manual' and await init(url) with the URL where you serve it", { cause });
}

/**
 * Says once, in the console, when a page loads two builds of the package (the default one and the
 * outbox's): two .wasm modules where one does.
 */
function once(url) {
  const builds = (globalThis[Symbol.for('plant-store-client.builds')] ??= new Set());
  builds.add(String(url));
  if (builds.size === 2) {
    console.warn(`plant-store-client is loaded twice (${[...builds].join(' and ')}): two .wasm modules. ` +
      "A page that uses the outbox imports everything (createPlant, PlantStoreError, …) from 'plant-store-client/outbox'.");
  }
}

/** The entry has the module at hand: `module()` gives it (a WebAssembly.Module or its bytes). */
export function loaded(module, url) {
  once(url);
  try {
    initSync({ module: module() });
    ready = true;
  } catch (cause) {
    failure = failed(url, cause);
  }
}

/** The entry is loading the module: `loading` settles once it is instantiated, or failed. */
export function loading(loading, url) {
  once(url);
  pending = loading.then(() => { ready = true; }, (cause) => { throw (failure = failed(url, cause)); });
  pending.catch(() => {});
}

/** init() loads the module with `loader(source)`, which resolves once it is instantiated. */
export function manual(loader) {
  load = loader;
}

/**
 * Resolves once the module is loaded. With plant-store-client/manual it loads it, once, from
 * `source` (see manual.js); a failed load rejects with a `config` PlantStoreError that names the
 * URL, and may be tried again.
 */
export function init(source) {
  if (ready || failure || pending || !load) return failure ? Promise.reject(failure) : pending ?? Promise.resolve();
  pending = load(source).then(() => { ready = true; }, (cause) => {
    pending = null;
    const url = typeof source == 'string' ? source : source?.href ?? source?.url ?? 'the source given to init()';
    throw new PlantStoreError('config', `init() could not load the wasm module from ${url}: ${cause}. ` +
      'Pass init() the URL where plant_store_client_bg.wasm is served, its bytes or a WebAssembly.Module', { cause });
  });
  return pending;
}

export function createPlant(plant, options) {
  return ready ? create(plant, options) : (pending ?? Promise.reject(notReady())).then(() => create(plant, options));
}

export function validateNewPlant(plant) {
  if (!ready) throw failure ?? notReady();
  return validate(plant);
}

export class PlantStoreClient {
  #client;
  #made;
  constructor(options) {
    if (ready) this.#client = new Client(options);
    else if (pending && !failure) {
      this.#made = pending.then(() => { this.#client = new Client(options); });
      this.#made.catch(() => {}); // its calls reject with the error
    } else throw failure ?? notReady();
  }
  createPlant(plant, options) {
    return this.#client ? this.#client.createPlant(plant, options)
      : this.#made.then(() => this.#client.createPlant(plant, options));
  }
  free() {
    this.#client?.free();
  }
}
if (Symbol.dispose) PlantStoreClient.prototype[Symbol.dispose] = PlantStoreClient.prototype.free;
