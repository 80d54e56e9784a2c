// Loads the package once for the whole page: plant-store-client/outbox, whose build serves both the
// form (createPlant, validateNewPlant) and the queue (PlantOutbox), so the page fetches one .wasm.

/**
 * `load()`, tried again each time the browser comes back online while it fails for the network: the
 * package and its .wasm may not have arrived when the connection dropped, the one moment an offline
 * queue matters; the package fetches its .wasm again on the next try. Any other failure (the .wasm
 * not served, or not wasm: a misconfigured build) is thrown as the package words it. `say(text)`
 * shows where it stands.
 */
export async function loadOnline(load, say) {
  for (;;) {
    try {
      return await load();
    } catch (err) {
      // A PlantStoreError of kind `network` (the .wasm's fetch failed), or the browser's TypeError
      // for a module script it could not fetch.
      if (err?.kind !== 'network' && !(err instanceof TypeError)) throw err;
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

/** The package, its .wasm loaded. */
export const loadPackage = (say) =>
  loadOnline(async () => {
    const api = await import('./pkg/outbox/index.js');
    await api.init();
    return api;
  }, say);
