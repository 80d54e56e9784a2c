// The API of every entry, over the glue, and the wasm module's instance. Each entry hands over its
// module on import: compiled in the background (compiling, the browsers' entry) or instantiated at
// once (loaded). Every export works as the import resolves (docs/runtimes.md): one called before
// the background compile is done compiles the module then, on the main thread (a call waiting for
// it would wait longer, for the background compile's tasks); init() waits for it.
// A module that cannot be compiled (a Content-Security-Policy without 'wasm-unsafe-eval') makes
// every export fail with a `config` PlantStoreError that names the fix: a rejected import is an
// unhandled rejection no try/catch can turn into a PlantStoreError.
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
/** The error every export fails with once the module could not be compiled or instantiated. */
let failure = null;
/** The module's bytes while the background compile runs: what a synchronous export compiles. */
let bytes = null;
/** The background compile, settled once the module is instantiated or has failed. */
let compiled = null;

/**
 * Says once, in the console, when a page loads both builds of the package (the default one and the
 * outbox's, told apart by the size of their module): two wasm modules where one does.
 */
function once(size) {
  const shared = Symbol.for('plant-store-client.builds');
  globalThis[shared] ??= new Set();
  const builds = globalThis[shared];
  builds.add(size);
  if (builds.size === 2) {
    console.warn(
      "plant-store-client is loaded twice, its default build and the outbox's: two wasm modules. " +
        "Code that uses the outbox imports everything (createPlant, PlantStoreError, …) from 'plant-store-client/outbox'.",
    );
  }
}

/** Every export's error once the module could not be compiled, from its `cause`. */
const failed = (cause) =>
  new PlantStoreError(
    'config',
    `plant-store-client could not compile its wasm module (${cause}): ` +
      "a Content-Security-Policy must allow 'wasm-unsafe-eval' in script-src",
    { cause },
  );

/** Instantiates `module` (a WebAssembly.Module, or bytes compiled now) unless that is done or failed. */
function instantiate(module) {
  if (ready || failure) return;
  try {
    initSync({ module });
    ready = true;
    bytes = null;
  } catch (cause) {
    failure = failed(cause);
  }
}

/** Server and edge runtimes: `module`, a WebAssembly.Module or its bytes, instantiated on import. */
export function loaded(module) {
  if (module.length) once(module.length);
  instantiate(module);
}

/** Browsers: `module`'s bytes compiled in the background and instantiated once compiled. */
export function compiling(module) {
  once(module.length);
  bytes = module;
  // In a promise, so that a runtime without WebAssembly fails here rather than the import.
  compiled = new Promise((resolve) => resolve(WebAssembly.compile(module))).then(
    instantiate,
    (cause) => {
      if (!ready) failure ??= failed(cause);
    },
  );
}

/** Whether the module is instantiated, compiled at once if the background compile is not done. */
function readyNow() {
  if (!ready) instantiate(bytes);
  return ready;
}

/** What init() gives, made by its first call. */
let readiness = null;

/**
 * Resolves once the module is instantiated, at once where it is; rejects with every export's error;
 * the same promise each time (React's `use(init())` needs it). No export needs it; a page may await
 * it before its first call (which would otherwise compile the module then, on the main thread) or to
 * learn of a failure up front. The outbox's `open` waits for it (js/entries/outbox.js).
 */
export function init() {
  readiness ??= (compiled ?? Promise.resolve()).then(() => {
    if (failure) throw failure;
  });
  return readiness;
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
export function fromCaller(fn, error) {
  Error.captureStackTrace?.(error, fn);
  return error;
}

/** For a call of another module (the outbox's `open`): `call`, rejecting as `createPlant` does. */
export function fromCall(call) {
  return atCall ? atCaller(call) : relay(call);
}

export function createPlant(plant, options) {
  const call = readyNow() ? create(plant, options) : Promise.reject(failure);
  return atCall ? atCaller(call) : relay(call);
}

/** Throws every export's error unless the module is instantiated (compiled now if need be). */
export function instantiated() {
  if (!readyNow()) throw failure;
}

export function validateNewPlant(plant) {
  instantiated();
  return validate(plant);
}

export class PlantStoreClient {
  #client;
  constructor(options) {
    instantiated();
    try {
      this.#client = new Client(options);
    } catch (error) {
      throw fromCaller(PlantStoreClient, error);
    }
  }
  createPlant(plant, options) {
    const call = this.#client
      ? this.#client.createPlant(plant, options)
      : Promise.reject(new PlantStoreError('config', FREED));
    return atCall ? atCaller(call) : relay(call);
  }
  /** Frees the client's wasm memory now; later calls fail with a `config` error, a second free() does nothing. */
  free() {
    this.#client?.free();
    this.#client = undefined;
  }
}
const FREED = 'client.createPlant: this PlantStoreClient was freed: make a new one';
if (Symbol.dispose) PlantStoreClient.prototype[Symbol.dispose] = PlantStoreClient.prototype.free;
