// A module Worker importing the default entry: the wasm is loaded when the import settles.
import * as api from 'plant-store-client';
import { check } from '../check.mjs';

self.onmessage = async ({ data }) => {
  try {
    self.postMessage(await check(api, { ...data, where: 'worker' }));
  } catch (err) {
    self.postMessage({ error: String(err) });
  }
};
self.postMessage('ready');
