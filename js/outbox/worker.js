// `deliverPlants(options)`, for an app's service worker: the outbox's pages deliver, and so does
// the worker, with no page open. It answers Background Sync's `sync` (the tag its pages' outbox
// registers), `periodicsync` where the app was granted it, and a page's message (the tag, posted to
// it), heard on the platform's events (the worker's global scope), each by a round of the same
// outbox inside the event's `waitUntil`: the same machine in Rust, as a tab with no page life
// (src/outbox/), over the same store, Web Locks and channel.
import { start } from './outbox.js';

/**
 * Makes the worker deliver the plants of the outbox `options` describe (a `config` error for a
 * wrong option, thrown at once). `open(options, worker)` is the glue's `openOutbox`.
 */
export function delivering(open, options) {
  let core = open(options, true);
  const { tag, platform } = core;
  let opening;
  // An open that failed (the store refused), or an outbox closed on its own (its database deleted
  // or closed by the browser), is opened again, by a new core, at the next event.
  const again = () => {
    [opening, core] = [undefined, open(options, true)];
  };
  const deliver = async (last) => {
    opening ??= start(core).then(
      (outbox) => outbox.addEventListener('close', again),
      (error) => {
        again();
        throw error;
      },
    );
    await opening;
    const waiting = await core.input('flush');
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
