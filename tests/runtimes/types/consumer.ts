// Type-checked against the installed tarball under moduleResolution bundler and node16.
import { createPlant, init, PlantStoreError, type Plant, type PlantStoreOptions } from 'plant-store-client';
import { init as manualInit, validateNewPlant } from 'plant-store-client/manual';

const options: PlantStoreOptions = { baseUrl: 'http://127.0.0.1:4010', token: 't0ken' };

export async function use(): Promise<string> {
  await init();
  await manualInit(new URL('https://cdn.example/plant_store_client_bg.wasm'));
  const plant: Plant = await createPlant({ id: 1n, name: 'Fern' }, options);
  const result = validateNewPlant({ id: 1, name: 'x' });
  // @ts-expect-error: an id is a number or a BigInt
  await createPlant({ id: '1', name: 'Fern' }, options);
  try { await createPlant({ id: 2, name: 'x' }, options); } catch (err) {
    if (err instanceof PlantStoreError) return err.kind;
  }
  return result.ok ? plant.name : 'invalid';
}
