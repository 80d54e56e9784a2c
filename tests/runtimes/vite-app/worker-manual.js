// A module Worker importing `plant-store-client/manual`: nothing loads until init() is called.
import * as api from 'plant-store-client/manual';
import { check } from '../check.mjs';

self.onmessage = async ({ data }) => {
  try {
    await Promise.all([api.init(), api.init()]); // concurrent calls share one load
    self.postMessage(await check(api, { ...data, where: 'worker-manual' }));
  } catch (err) {
    self.postMessage({ error: String(err) });
  }
};
self.postMessage('ready');
