// The demo's service worker (registered by queue.js): it delivers the queue's plants with no page
// open, where the browser has Background Sync (Chromium), by the same outbox as the page's.
import { deliverPlants } from './pkg/outbox/worker.js';

deliverPlants({
  // The base URL of the page's queue, in this worker's URL: the page registers it again when it changes.
  baseUrl: new URL(location.href).searchParams.get('baseUrl'),
  getToken,
  name: 'demo',
});

/**
 * The demo's token, which its page keeps in Cache Storage for this worker. The outbox never stores
 * a token: where a worker's token comes from is the app's choice (an app of yours would rather
 * refresh one from a cookie-authenticated endpoint of its own).
 */
async function getToken() {
  const kept = await caches.match('token');
  if (!kept) throw new Error('the demo page has not given this worker a token yet');
  return kept.text();
}
