// The API of every entry, over the glue, and the state of the .wasm's load. Each entry starts the
// load its runtime's way: loaded() at once, loading() in the background, or manual() for init().
// Before the load is done (docs/runtimes.md, "Before the .wasm has loaded"):
// - init(), createPlant and a client's createPlant wait for it; new PlantStoreClient answers at
//   once and checks its options when the load is done (its first call rejects if one is wrong).
//   With plant-store-client/manual there is nothing to wait for until init(source) is called.
// - validateNewPlant answers synchronously, so it throws a `config` PlantStoreError that names the
//   fix for the entry in use.
// A load that failed for the network (fetch rejected) is a `network` PlantStoreError, and the next
// init() or call loads again. Any other failure on import (a 404, not wasm, a CSP) is a `config`
// PlantStoreError naming the URL and the fix, and every export fails with it: a rejected import is
// an unhandled rejection no try/catch can turn into a PlantStoreError.
// Every error a call rejects with carries the frame of the line that awaited it (atCall).
import {
  initSync,
  createPlant as create,
  validateNewPlant as validate,
  PlantStoreClient as Client,
  PlantStoreError,
} from './plant_store_client.js';

export { PlantStoreError };

let ready = false;
/** The load under way, or done; null before one starts and after one failed. */
let pending = null;
/** The error of the last failed load, until one succeeds. */
let failure = null;
/** Starts a load: from init()'s `source` (manual), or from the entry's own URL; null in the entries that load at once. */
let start = null;
let isManual = false;

/** What the caller must do before the load is done, in the words of the entry in use. */
const notReady = () =>
  new PlantStoreError(
    'config',
    isManual
      ? 'the wasm module is not loaded: plant-store-client/manual loads it when you call init(), so await init() first'
      : 'the wasm module is still loading: await init() before validateNewPlant (createPlant and PlantStoreClient wait by themselves)',
  );

/** The error of a load from `url` that failed with `cause`: a misconfiguration's. */
function failed(url, cause) {
  return new PlantStoreError(
    'config',
    `plant-store-client could not load its wasm module from ${url} (${cause}). ` +
      'Serve plant_store_client_bg.wasm there (copy it next to your bundle if your bundler did not emit it; ' +
      "a Content-Security-Policy must allow 'wasm-unsafe-eval'), " +
      "or import from 'plant-store-client/manual' and await init(url) with the URL where you serve it",
    { cause },
  );
}

/**
 * Says once, in the console, when a page loads two builds of the package (the default one and the
 * outbox's): two .wasm modules where one does.
 */
function once(url) {
  const shared = Symbol.for('plant-store-client.builds');
  globalThis[shared] ??= new Set();
  const builds = globalThis[shared];
  builds.add(String(url));
  if (builds.size === 2) {
    console.warn(
      `plant-store-client is loaded twice (${[...builds].join(' and ')}): two .wasm modules. ` +
        "Code that uses the outbox imports everything (createPlant, PlantStoreError, …) from 'plant-store-client/outbox'.",
    );
  }
}

/** The entry has the module at hand: `module()` gives it (a WebAssembly.Module or its bytes). */
export function loaded(module, url) {
  once(url);
  try {
    initSync({ module: module() });
    ready = true;
    pending = Promise.resolve();
  } catch (cause) {
    failure = failed(url, cause);
  }
}

/**
 * The entry fetches the module with `load()`, which resolves once it is instantiated: now, and again
 * after the network failed it (fetch, or reading the body, rejects with a TypeError then).
 */
export function loading(load, url) {
  once(url);
  start = () =>
    load().catch((cause) => {
      if (!(cause instanceof TypeError)) throw failed(url, cause);
      throw new PlantStoreError(
        'network',
        `plant-store-client could not fetch its wasm module from ${url} (${cause}): ` +
          'the connection failed; the next call or init() fetches it again',
        { cause },
      );
    });
  settle();
}

/** init(source) loads the module with `loader(source)`, which resolves once it is instantiated. */
export function manual(loader) {
  isManual = true;
  start = (source) =>
    loader(source).catch((cause) => {
      const url =
        typeof source === 'string'
          ? source
          : (source?.href ?? source?.url ?? 'the source given to init()');
      throw new PlantStoreError(
        'config',
        `init() could not load the wasm module from ${url}: ${cause}. ` +
          'Pass init() the URL where plant_store_client_bg.wasm is served, its bytes or a WebAssembly.Module',
        { cause },
      );
    });
}

/** Starts a load from `source`; `pending` is it until it fails. */
function settle(source) {
  pending = start(source).then(
    () => {
      ready = true;
    },
    (error) => {
      failure = error;
      pending = null;
      throw error;
    },
  );
  pending.catch(() => {}); // a load nobody awaits yet is not an unhandled rejection
  return pending;
}

/** The load a call waits for: the one under way, or a new one after the network failed one; null when there is none. */
function loadToWaitFor() {
  if (!pending && start && !isManual && failure?.kind === 'network') settle();
  return pending;
}

/** The load to wait for, or a rejection that says why there is none. */
const whenLoaded = () => loadToWaitFor() ?? Promise.reject(failure ?? notReady());

/**
 * Resolves once the module is loaded (the same promise each time, as React's `use(init())` needs).
 * With plant-store-client/manual it loads it, once, from `source` (see manual.js); a failed load
 * rejects with a PlantStoreError that names the URL, and may be tried again.
 */
export function init(source) {
  return isManual ? (pending ?? settle(source)) : whenLoaded();
}

/**
 * `call`, rejecting with its PlantStoreError made again when it fails, whose stack starts at the
 * line that awaited the call: V8 captures it leaving out every frame up to `awaited`, the event
 * loop's and this package's, so the first frame is the caller's (its async frame), and Node prints
 * that line under its caret. Nothing is captured while the call succeeds: a frame captured at every
 * call would cost a tenth of a call on loopback (docs/performance.md). A caller that does not await the
 * call (`.then()`), or an engine without async frames, gets an error without frames.
 */
function atCaller(call) {
  return awaited(call.catch(reframe));
}

/** Awaits `call`: the frame after which `reframe`'s stack starts. */
async function awaited(call) {
  return await call;
}

/** Throws `error`, a PlantStoreError made again with the caller's frame (atCaller). */
function reframe(error) {
  if (!PlantStoreError.is(error)) throw error;
  // Made with its message: an engine writes the stack's first line when the error is made.
  const again = fields(error, new PlantStoreError(error.kind, error.message));
  Error.captureStackTrace?.(again, awaited);
  throw again;
}

/**
 * `call`, rejecting with its PlantStoreError made again here, after an await: the engine's async
 * stack goes on with the frame of the line that awaited the call (V8 records it always,
 * SpiderMonkey with its devtools open). A call that succeeds pays for no stack.
 */
async function relay(call) {
  try {
    return await call;
  } catch (error) {
    // Made with its message: an engine writes the stack's first line when the error is made.
    throw PlantStoreError.is(error)
      ? fields(error, new PlantStoreError(error.kind, error.message))
      : error;
  }
}

/**
 * `to` with the fields of `error`: its own only, as they are (`message` and `cause` not
 * enumerable), not its stack, nor where an engine records the line that made it (JavaScriptCore's
 * `line`, `sourceURL`).
 */
function fields(error, to) {
  for (const key of FIELDS)
    if (Object.hasOwn(error, key))
      Object.defineProperty(to, key, Object.getOwnPropertyDescriptor(error, key));
  return to;
}

/**
 * How a call's error gets the frame of the line that called it, once it fails. In the server
 * runtimes' entries, as the first frame (atCaller): Node prints an uncaught error's first frame and
 * its line of source under a caret. In the browsers' entries, among the async frames the engine
 * adds after an await (relay), which devtools show.
 */
let atCall = true;

/** The browsers' entries: the caller's frame when a call fails (see atCall). */
export function framesOnFailure() {
  atCall = false;
}

/** The fields of a PlantStoreError (js/error.js). */
const FIELDS = [
  'message',
  'cause',
  'kind',
  'attempts',
  'maybeCreated',
  'status',
  'code',
  'issues',
  'retryAfterMs',
];

/** `error`, new and thrown synchronously by `fn`, with the stack of the line that called `fn`. */
function fromCaller(fn, error) {
  Error.captureStackTrace?.(error, fn);
  return error;
}

/**
 * For a call of another module (the outbox's `open`, which passes itself as `_called`): `call`,
 * rejecting as `createPlant` does, with the frame of the line that awaited it.
 */
export function fromCall(_called, call) {
  return atCall ? atCaller(call) : relay(call);
}

export function createPlant(plant, options) {
  const call = ready ? create(plant, options) : whenLoaded().then(() => create(plant, options));
  return atCall ? atCaller(call) : relay(call);
}

export function validateNewPlant(plant) {
  if (!ready) throw failure ?? fromCaller(validateNewPlant, notReady());
  return validate(plant);
}

export class PlantStoreClient {
  #client;
  #made;
  constructor(options) {
    if (ready) {
      try {
        this.#client = new Client(options);
      } catch (error) {
        throw fromCaller(PlantStoreClient, error);
      }
    } else if (loadToWaitFor()) {
      this.#made = pending.then(() => {
        this.#client = new Client(options);
      });
      this.#made.catch(() => {}); // its calls reject with the error
    } else throw failure ?? fromCaller(PlantStoreClient, notReady());
  }
  createPlant(plant, options) {
    const call = this.#client
      ? this.#client.createPlant(plant, options)
      : this.#made.then(() => this.#client.createPlant(plant, options));
    return atCall ? atCaller(call) : relay(call);
  }
  free() {
    this.#client?.free();
  }
}
if (Symbol.dispose) PlantStoreClient.prototype[Symbol.dispose] = PlantStoreClient.prototype.free;
