// The app's queue: plants kept in IndexedDB until the store has them, across reloads and offline.
// A module that uses the outbox imports all of the package from 'plant-store-client/outbox'.
import { PlantOutbox } from 'plant-store-client/outbox';
import { API } from './api.js';

/** Opens the queue; `platform` gives it another IndexedDB (fake-indexeddb's in Node). */
export function openQueue(getToken, platform) {
  return PlantOutbox.open({ baseUrl: API, getToken, name: 'plants', platform });
}

/** What the page lists: each plant's name and where it stands. */
export const listed = (queue) => queue.entries().map((e) => `${e.plant.name}: ${e.state}`);
