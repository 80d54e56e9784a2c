// The types of `plant-store-client/outbox/worker` (js/entries/worker.js), for an app's service worker.
import type { PlantOutboxOptions } from './index.js';

/**
 * Makes this service worker deliver the plants of the outbox `options` describe (the options its
 * pages open it with; `getToken` is this worker's own): on Background Sync's `sync` (the tag the
 * outbox's pages register), `periodicsync` where the app was granted it, and a page's message of
 * the tag. Call it as the worker's script is evaluated; a wrong option throws a `config`
 * PlantStoreError.
 */
export function deliverPlants(options: PlantOutboxOptions): void;
