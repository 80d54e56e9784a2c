// The page script of the load-failure checks: how each export fails when the .wasm did not load. The
// import itself must succeed (this module runs at all), then every export fail with the error.
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
window.result = {
  createPlant: await outcome(() => api.createPlant({ id: 1n, name: 'Fern' }, options)),
  validateNewPlant: await outcome(() => api.validateNewPlant({ id: 1, name: 'Fern' })),
  PlantStoreClient: await outcome(() => new api.PlantStoreClient(options)),
  init: await outcome(() => api.init()),
};
