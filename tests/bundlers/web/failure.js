// The page script of the load-failure checks: how each export fails when the wasm module cannot be
// compiled. The import itself must succeed (this script runs at all), then every export fail with
// the error. No top-level await: the charset check builds it as a classic script.
import * as api from 'plant-store-client';

const params = new URLSearchParams(location.search);
const options = { baseUrl: params.get('base'), token: params.get('token') };
const seen = (err) => ({
  isPlantStoreError: err instanceof api.PlantStoreError,
  kind: err.kind,
  message: err.message,
  cause: String(err.cause),
});
/** Whether `call` threw, or returned a promise that rejected or fulfilled. */
function outcome(call) {
  let value;
  try {
    value = call();
  } catch (err) {
    return { threw: seen(err) };
  }
  if (!(value instanceof Promise)) return { returned: true };
  return value.then(
    () => ({ fulfilled: true }),
    (err) => ({ rejected: seen(err) }),
  );
}
Promise.all([
  outcome(() => api.createPlant({ id: 1n, name: 'Fern' }, options)),
  outcome(() => api.validateNewPlant({ id: 1, name: 'Fern' })),
  outcome(() => new api.PlantStoreClient(options)),
  outcome(() => api.init()),
]).then(([createPlant, validateNewPlant, PlantStoreClient, init]) => {
  window.result = { createPlant, validateNewPlant, PlantStoreClient, init };
});
