// The page each Vite version builds at its default configuration: the same call as every bundler's
// page (check.mjs), and the .wasm files the page requested (none: the wasm is inside the script).
import * as api from 'plant-store-client';
import { check } from './check.mjs';

const params = new URLSearchParams(location.search);
check(api, {
  baseUrl: params.get('base'),
  token: params.get('token'),
  id: params.get('id'),
  where: params.get('where'),
}).then(
  (result) => {
    const loaded = performance
      .getEntriesByType('resource')
      .map((entry) => entry.name)
      .filter((name) => name.endsWith('.wasm'));
    window.result = { ...result, loaded };
  },
  (err) => {
    window.result = { error: String(err) };
  },
);
