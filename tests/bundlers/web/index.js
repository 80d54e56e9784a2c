// The page script every bundler builds: an import of the package's default entry, one real call and
// one validation failure (check.mjs, a copy of tests/runtimes/check.mjs), the summary on window.result.
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
    window.result = result;
  },
  (err) => {
    window.result = { error: String(err) };
  },
);
