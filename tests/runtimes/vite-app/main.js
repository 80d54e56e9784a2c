// The main thread of a Vite app: `import` of the package (the default entry).
import * as api from 'plant-store-client';
import { check } from '../check.mjs';

const params = new URLSearchParams(location.search);
check(api, {
  baseUrl: params.get('base'),
  token: params.get('token'),
  id: params.get('id'),
  where: 'vite',
}).then(
  (result) => {
    window.result = result;
  },
  (err) => {
    window.result = { error: String(err) };
  },
);
