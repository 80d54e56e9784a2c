// `plant-store-client/outbox/worker`, for an app's service worker: `deliverPlants(options)` makes the
// worker deliver the outbox's plants with no page open (js/outbox/worker.js). A service worker
// cannot await its imports: the .wasm, inside this module as in the browsers' entry, is compiled
// and instantiated as the import resolves (a worker's thread, not a page's, waits for it).
import { wasmBytes } from './wasm.js';
import { loaded, instantiated, fromCaller } from './api.js';
import { openOutbox } from './plant_store_client.js';
import { delivering } from '../outbox/worker.js';

loaded(wasmBytes());

/**
 * Makes this service worker deliver the plants of the outbox `options` describe, the options its
 * pages open it with (`getToken` this worker's own). Called as the worker's script is evaluated, as
 * its event listeners must be; a wrong option throws a `config` PlantStoreError at once.
 */
export function deliverPlants(options) {
  instantiated();
  try {
    delivering(openOutbox, options);
  } catch (error) {
    throw fromCaller(deliverPlants, error);
  }
}
