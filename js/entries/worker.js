// `plant-store-client/outbox/worker`, for an app's service worker: it delivers the outbox's plants
// with no page open. It answers Background Sync's `sync` (the tag the pages' outbox registers),
// `periodicsync` where the app was granted it and a page's message of the tag, each by a round of
// the same outbox inside the event's `waitUntil`: Rust's machine as a tab with no page life. A
// service worker cannot await its imports: the .wasm, inside this module, is compiled and
// instantiated as the import resolves.
import { wasmBytes } from './wasm.js';
import { loaded, instantiated, fromCaller } from './api.js';
import { openOutbox } from './plant_store_client.js';
import { start } from '../outbox/outbox.js';

loaded(wasmBytes());

/**
 * Makes this service worker deliver the plants of the outbox `options` describe, the options its
 * pages open it with (`getToken` this worker's own). Called as the worker's script is evaluated, as
 * its event listeners must be; a wrong option throws a `config` PlantStoreError at once.
 */
export function deliverPlants(options) {
  instantiated();
  let core;
  try {
    core = openOutbox(options, true);
  } catch (error) {
    throw fromCaller(deliverPlants, error);
  }
  const { tag, platform } = core;
  let opening;
  const deliver = async (last) => {
    // An open that failed (the store refused), or an outbox closed on its own (its database
    // deleted or closed by the browser), is opened again, by a new core, at the next event.
    core ??= openOutbox(options, true);
    const current = core;
    const again = () => {
      if (core === current) core = opening = undefined;
    };
    opening ??= start(current, again).catch((error) => {
      again();
      throw error;
    });
    await opening;
    const waiting = await current.input('flush');
    // Entries still due: the browser fires the sync again later, unless this was its last chance,
    // which leaves them to the pages.
    if (waiting > 0 && !last)
      throw new Error(`plant-store-client/outbox: ${waiting} entries still wait to be sent`);
  };
  const on = (type, last) =>
    platform.events.addEventListener(type, (event) => {
      if ((event.tag ?? event.data) === tag) event.waitUntil(deliver(last(event)));
    });
  on('sync', (event) => event.lastChance);
  on('periodicsync', () => true);
  on('message', () => true);
}
