// A Web Worker importing the default entry: every export works as the import resolves.
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
