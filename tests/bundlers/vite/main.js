// The page each Vite version builds at its default configuration: the preload of the .wasm that
// docs/runtimes.md gives, through the package's `./wasm` subpath (`?url` gives the URL Vite
// emitted), then the same call as every bundler's page (check.mjs). `wasmUrl` is reported, to compare with the URL the
// package loaded.
import wasmUrl from 'plant-store-client/wasm?url';
import * as api from 'plant-store-client';
import { check } from './check.mjs';

const preload = Object.assign(document.createElement('link'), {
  rel: 'preload',
  as: 'fetch',
  href: wasmUrl,
  crossOrigin: '',
});
document.head.append(preload);

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
    window.result = { ...result, wasmUrl: new URL(wasmUrl, location.href).href, loaded };
  },
  (err) => {
    window.result = { error: String(err) };
  },
);
