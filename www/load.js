// Loads the package once for the whole page: plant-store-client/outbox, whose build serves both the
// form (createPlant, validateNewPlant) and the queue (PlantOutbox): one wasm module for the page.

/**
 * `load()`, tried again each time the browser comes back online while it fails for the network: the
 * package may not have arrived when the connection dropped, the one moment an offline queue
 * matters. Any other failure (a wasm module that cannot be compiled: a Content-Security-Policy
 * without 'wasm-unsafe-eval') is thrown as the package words it. `say(text)` shows where it stands.
 */
export async function loadOnline(load, say) {
  for (;;) {
    try {
      return await load();
    } catch (err) {
      // The browser's TypeError for a module script it could not fetch.
      if (!(err instanceof TypeError)) throw err;
      say(
        'Offline: the client’s code could not be downloaded. It loads as soon as the connection is back.',
      );
      console.warn('the page waits for the connection:', err?.message ?? err);
      // When the browser says it is online all along (the server dropped the request), in a while.
      await new Promise((resolve) => {
        addEventListener('online', resolve, { once: true });
        if (navigator.onLine) setTimeout(resolve, 10_000);
      });
      say('Loading the client…');
    }
  }
}

/** The package, its wasm module compiled (in the background: the page is not held meanwhile). */
export const loadPackage = (say) =>
  loadOnline(async () => {
    const api = await import('./pkg/outbox/index.js');
    await api.init();
    return api;
  }, say);
